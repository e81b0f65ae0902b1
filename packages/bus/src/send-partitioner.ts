import type { ICustomPartitioner } from "kafkajs";

/**
 * Puts every event of one send on one partition of its topic and the next send on the next
 * partition, like Kafka's sticky partitioner does for records without a key. Partitioning by key
 * would split each send into a small record batch per partition, and the producer and the broker
 * pay per batch (checksum, headers, validation, log append). No order the consumers need is lost:
 * a call event is the only one with its request id, every consumer is idempotent by request id,
 * and the key-usage events that share an API key only ever move `last_used_at` forward.
 */
export function sendPartitioner(): { nextSend(): void; createPartitioner: ICustomPartitioner } {
  let turn = Math.floor(Math.random() * 2 ** 30);
  // Chosen once per topic and send: kafkajs may partition a send again when it retries after a
  // metadata refresh, and a send must not move to a broker that has already answered for it.
  const chosen = new Map<string, number>();
  return {
    nextSend() {
      turn = (turn + 1) % 2 ** 30;
      chosen.clear();
    },
    createPartitioner:
      () =>
      ({ topic, partitionMetadata }) => {
        let partition = chosen.get(topic);
        if (partition === undefined) {
          const led = partitionMetadata.filter((p) => p.leader >= 0);
          const choices = led.length > 0 ? led : partitionMetadata;
          partition = choices[turn % choices.length]!.partitionId;
          chosen.set(topic, partition);
        }
        return partition;
      },
  };
}
