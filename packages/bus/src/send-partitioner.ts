import type { ICustomPartitioner } from "kafkajs";

/**
 * Puts every event of one send on one partition of its topic and the next send on the next
 * partition, as Kafka's own producer does ("sticky" partitioning). Keyed partitioning would split
 * each send into a small record batch per partition, and the producer and the broker pay per
 * batch (checksum, headers, validation, log append). No order is lost: a request publishes one
 * event, so a key has nothing to order, and the consumers are idempotent by request id.
 */
export function sendPartitioner(): { nextSend(): void; createPartitioner: ICustomPartitioner } {
  let turn = Math.floor(Math.random() * 2 ** 30);
  return {
    nextSend() {
      turn = (turn + 1) % 2 ** 30;
    },
    createPartitioner:
      () =>
      ({ partitionMetadata }) => {
        const led = partitionMetadata.filter((p) => p.leader >= 0);
        const choices = led.length > 0 ? led : partitionMetadata;
        return choices[turn % choices.length]!.partitionId;
      },
  };
}
