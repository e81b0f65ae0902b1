// The secured Kafka cluster's smoke check (infra/secure/smoke.sh): who gets in, and a partition
// leader SIGKILLed while an idempotent acks=all producer sends, then every record read back once.
import { execFileSync } from "node:child_process";
import { dependency, env, expectOk, expectRefused, figure, finish, pem } from "./common.mjs";

const { Kafka, logLevel, ConfigResourceTypes } = dependency("packages/bus", "kafkajs");
const sasl = env("SECURE_KAFKA_BROKERS").split(",");
const mtls = env("SECURE_KAFKA_MTLS_BROKERS").split(",");
const user = { username: env("SECURE_KAFKA_USER"), password: env("SECURE_KAFKA_PASSWORD") };
const script = new URL("../kafka.sh", import.meta.url).pathname;
const topic = `e2e-smoke-${Date.now()}`;

function client(brokers, options, retries = 0) {
  return new Kafka({
    clientId: "secure-smoke",
    brokers,
    connectionTimeout: 3_000,
    retry: { retries, initialRetryTime: 200, maxRetryTime: 2_000 },
    logLevel: logLevel.NOTHING,
    ...options,
  });
}

async function describeCluster(kafka) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { brokers } = await admin.describeCluster();
    return `${brokers.length} brokers`;
  } finally {
    await admin.disconnect();
  }
}

const scram = (mechanism, password = user.password) => ({
  ssl: { ca: [pem("ca.crt")] },
  sasl: { mechanism, username: user.username, password },
});

console.log("kafka: who gets in");
for (const mechanism of ["scram-sha-256", "scram-sha-512", "plain"])
  await expectOk(`SASL_SSL ${mechanism}`, () => describeCluster(client(sasl, scram(mechanism))));
await expectOk("mutual TLS with the CA's client certificate", () =>
  describeCluster(
    client(mtls, { ssl: { ca: [pem("ca.crt")], cert: pem("client.crt"), key: pem("client.key") } }),
  ),
);
await expectRefused("a wrong password (SCRAM-SHA-512)", () =>
  describeCluster(client(sasl, scram("scram-sha-512", "wrong"))),
);
await expectRefused("plaintext SASL (no TLS)", () =>
  describeCluster(client(sasl, { sasl: scram("scram-sha-256").sasl })),
);
await expectRefused("TLS trusting the wrong CA", () =>
  describeCluster(client(sasl, { ...scram("scram-sha-256"), ssl: { ca: [pem("wrong-ca.crt")] } })),
);
await expectRefused("mutual TLS with a client certificate of the wrong CA", () =>
  describeCluster(
    client(mtls, {
      ssl: { ca: [pem("ca.crt")], cert: pem("wrong-client.crt"), key: pem("wrong-client.key") },
    }),
  ),
);
await expectRefused("mutual TLS without a client certificate", () =>
  describeCluster(client(mtls, { ssl: { ca: [pem("ca.crt")] } })),
);

// the gateway's own client settings: retries enough to ride out a leader election
const kafka = client(sasl, scram("scram-sha-256"), 8);
const admin = kafka.admin();
await admin.connect();

console.log("kafka: ACLs");
await expectRefused("creating a topic outside the user's prefixes", () =>
  admin.createTopics({ topics: [{ topic: `not-granted-${Date.now()}` }] }).then((made) => {
    if (!made) throw new Error("not made");
  }),
);
await expectOk(`creating ${topic} (broker defaults)`, async () => {
  // each broker learns of a topic made a moment ago in its own time, and kafkajs's wait for its
  // leaders does not retry "unknown topic" (kafkajs#815): made (a no-op once it exists) and
  // asked for again until every step answers, as packages/bus does
  const describe = async () => {
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 3 }] });
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    const { resources } = await admin.describeConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ["min.insync.replicas"] }],
      includeSynonyms: false,
    });
    return { topics, config: resources[0] };
  };
  let described;
  for (let attempt = 1; !described; attempt++) {
    described = await describe().catch((error) => {
      if (attempt === 10) throw error;
      return new Promise((wait) => setTimeout(wait, 200 * attempt));
    });
  }
  const { topics, config } = described;
  const replicas = topics[0].partitions.map((p) => p.replicas.length);
  return `replicas per partition ${replicas.join("/")}, min.insync.replicas ${config.configEntries[0].configValue}`;
});

async function leaderOf(partition) {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  return topics[0].partitions.find((p) => p.partitionId === partition).leader;
}

console.log("kafka: a partition leader SIGKILLed under an idempotent acks=all producer");
const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
await producer.connect();
const total = 300;
const killAt = 100;
let slowest = 0;
let killed = 0;
const sent = await expectOk(
  `${total} sends, one every 10 ms, acks=all`,
  async () => {
    for (let i = 0; i < total; i++) {
      if (i === killAt) {
        killed = await leaderOf(0);
        execFileSync(script, ["kill", String(killed)], { stdio: "ignore" });
      }
      const t0 = performance.now();
      await producer.send({
        topic,
        acks: -1,
        messages: [{ key: String(i % 3), value: String(i), partition: i % 3 }],
      });
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((wait) => setTimeout(wait, 10));
    }
    return `node ${killed} (leader of partition 0) killed after send ${killAt}; partition 0 now led by ${await leaderOf(0)}`;
  },
  120_000,
);
figure(`slowest send across the leader's loss: ${Math.round(slowest)} ms`);
await producer.disconnect();

await expectOk(
  "every record read back exactly once by a new consumer group",
  async () => {
    const consumer = kafka.consumer({ groupId: `${topic}.readers` });
    const seen = new Map();
    const t0 = performance.now();
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const all = new Promise((resolve) => {
      consumer.run({
        eachMessage: async ({ message }) => {
          const v = message.value.toString();
          seen.set(v, (seen.get(v) ?? 0) + 1);
          if (seen.size === total) resolve();
        },
      });
    });
    await all;
    await consumer.disconnect();
    const twice = [...seen.values()].filter((n) => n > 1).length;
    if (twice > 0) throw new Error(`${twice} records read twice`);
    return `${seen.size} records in ${Math.round(performance.now() - t0)} ms, none twice`;
  },
  90_000,
);
await admin.disconnect();
if (sent && killed) {
  const t0 = performance.now();
  execFileSync(script, ["start-node", String(killed)], { stdio: "ignore" });
  figure(`node ${killed} started again and serving in ${Math.round(performance.now() - t0)} ms`);
}
finish();
