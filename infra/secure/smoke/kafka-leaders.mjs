// Prints "partition leader replicas isr" for each partition of a topic of the secured cluster
// (infra/secure/kafka.sh leaders TOPIC), as its super user over mutual TLS.
import { dependency, env, pem } from "./common.mjs";

const { Kafka, logLevel } = dependency("packages/bus", "kafkajs");
const kafka = new Kafka({
  clientId: "infra-leaders",
  brokers: env("SECURE_KAFKA_MTLS_BROKERS").split(","),
  ssl: { ca: [pem("ca.crt")], cert: pem("server.crt"), key: pem("server.key") },
  logLevel: logLevel.NOTHING,
});
const admin = kafka.admin();
await admin.connect();
try {
  const { topics } = await admin.fetchTopicMetadata({ topics: [process.argv[2]] });
  for (const p of topics[0].partitions.sort((a, b) => a.partitionId - b.partitionId))
    console.log(`${p.partitionId} ${p.leader} ${p.replicas.join(",")} ${p.isr.join(",")}`);
} catch (error) {
  console.error(`leaders of ${process.argv[2]}: ${error.type ?? error.message}`);
  process.exitCode = 1;
} finally {
  await admin.disconnect();
}
