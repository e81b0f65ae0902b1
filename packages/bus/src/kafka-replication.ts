import type { Admin } from "kafkajs";

/** How the topics a bus creates are replicated; unset parts fit the cluster (`topicReplication`). */
export interface KafkaReplication {
  /** Copies of each partition. Unset: 3, or the number of brokers when fewer. */
  replicationFactor?: number;
  /**
   * Copies a write must reach before the broker acknowledges it (the producer asks for all in
   * sync). Unset: one less than the replication factor, at most 2 and at least 1, so that one
   * broker can be lost (two, with 5 copies) without refusing writes.
   */
  minInsyncReplicas?: number;
}

/** The replication of a topic about to be created, asking the cluster its size for the defaults. */
export async function topicReplication(
  admin: Admin,
  wanted: KafkaReplication,
): Promise<Required<KafkaReplication>> {
  if (wanted.replicationFactor && wanted.minInsyncReplicas) return replicationIn(0, wanted);
  return replicationIn((await admin.describeCluster()).brokers.length, wanted);
}

/** `wanted`, its unset parts filled for a cluster of `brokers`. */
export function replicationIn(brokers: number, wanted: KafkaReplication): Required<KafkaReplication> {
  const replicationFactor = wanted.replicationFactor ?? Math.max(1, Math.min(3, brokers));
  const minInsyncReplicas = wanted.minInsyncReplicas ?? Math.max(1, Math.min(2, replicationFactor - 1));
  return { replicationFactor, minInsyncReplicas };
}
