// The bus on Kafka, a subpath of its own (`@gateway/bus/kafka`): the package's main export leaves
// kafkajs out, so the all-in-one process, which never opens Kafka, does not load it.
export * from "./kafka-access.ts";
export * from "./kafka-bus.ts";
export type { ConsumerFetch } from "./kafka-consumer.ts";
