import type { PartitionerArgs } from "kafkajs";
import { describe, expect, it } from "vitest";
import { sendPartitioner } from "../src/send-partitioner.ts";

const metadata = (leaders: number[]): PartitionerArgs["partitionMetadata"] =>
  leaders.map((leader, partitionId) => ({
    partitionId,
    leader,
    partitionErrorCode: 0,
    replicas: [leader],
    isr: [leader],
  }));

function partitionsOfSends(leaders: number[], sends: number, perSend: number): number[][] {
  const partitions = sendPartitioner();
  const choose = partitions.createPartitioner();
  const result: number[][] = [];
  for (let send = 0; send < sends; send++) {
    partitions.nextSend();
    result.push(
      Array.from({ length: perSend }, (_, i) =>
        choose({
          topic: "t",
          partitionMetadata: metadata(leaders),
          message: { key: `k${send}.${i}`, value: "v" },
        }),
      ),
    );
  }
  return result;
}

describe("send partitioner", () => {
  it("keeps a send on one partition, whatever the keys, and moves on with each send", () => {
    const sends = partitionsOfSends([1, 1, 1], 6, 20);
    for (const send of sends) expect(new Set(send).size).toBe(1);
    const firsts = sends.map((send) => send[0]!);
    // consecutive sends go to consecutive partitions, so six sends cover three partitions twice
    for (let i = 1; i < firsts.length; i++) expect(firsts[i]).toBe((firsts[i - 1]! + 1) % 3);
  });

  it("keeps a send's partition when the leaders change under it (kafkajs re-partitions on retry)", () => {
    const partitions = sendPartitioner();
    const choose = partitions.createPartitioner();
    partitions.nextSend();
    const message = { key: "k", value: "v" };
    const first = choose({ topic: "t", partitionMetadata: metadata([1, 1, 1]), message });
    const leaders = [1, 1, 1];
    leaders[first] = -1;
    expect(choose({ topic: "t", partitionMetadata: metadata(leaders), message })).toBe(first);
    // another topic of the same send gets its own choice; the next send chooses again
    expect(choose({ topic: "u", partitionMetadata: metadata([1]), message })).toBe(0);
    partitions.nextSend();
    expect(choose({ topic: "t", partitionMetadata: metadata(leaders), message })).not.toBe(first);
  });

  it("skips partitions without a leader while any has one", () => {
    const used = new Set(partitionsOfSends([-1, 1, -1, 1], 8, 3).flat());
    expect([...used].sort()).toEqual([1, 3]);
    // with no leader anywhere it still answers a partition (the send then fails and is spooled)
    expect(partitionsOfSends([-1, -1], 1, 1)[0]![0]).toBeLessThan(2);
  });
});
