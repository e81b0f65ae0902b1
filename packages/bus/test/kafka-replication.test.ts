import { describe, expect, it } from "vitest";
import { replicationIn } from "../src/kafka-replication.ts";

describe("the replication of the topics a bus creates", () => {
  it.each([
    [1, 1, 1],
    [2, 2, 1],
    [3, 3, 2],
    [5, 3, 2],
  ])("fits a cluster of %i brokers: %i copies, %i in sync for a write", (brokers, copies, inSync) => {
    expect(replicationIn(brokers, {})).toEqual({ replicationFactor: copies, minInsyncReplicas: inSync });
  });

  it("takes what is set, filling only the rest", () => {
    expect(replicationIn(3, { replicationFactor: 5 })).toEqual({
      replicationFactor: 5,
      minInsyncReplicas: 2,
    });
    expect(replicationIn(3, { minInsyncReplicas: 1 })).toEqual({
      replicationFactor: 3,
      minInsyncReplicas: 1,
    });
  });
});
