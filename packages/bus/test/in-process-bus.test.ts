import { describe, expect, it } from "vitest";
import { createInProcessBus } from "../src/index.ts";

describe("in-process bus", () => {
  it("delivers every event to each group, in order, after publish returns", async () => {
    const bus = createInProcessBus();
    const a: unknown[] = [];
    const b: unknown[] = [];
    await bus.subscribe({ topic: "t", group: "a", handle: async (batch) => void a.push(...batch) });
    await bus.subscribe({ topic: "t", group: "b", handle: async (batch) => void b.push(...batch) });
    for (let i = 0; i < 600; i++) bus.publish("t", String(i), i);
    expect(a).toEqual([]);
    await bus.flush();
    expect(a).toEqual([...Array(600).keys()]);
    expect(b).toEqual(a);
    await bus.close();
  });

  it("says when the events published so far are handled by every group, not waiting for later ones", async () => {
    const bus = createInProcessBus();
    const handled: unknown[] = [];
    let release: () => void = () => {};
    await bus.subscribe({ topic: "t", group: "fast", handle: async () => {} });
    await bus.subscribe({
      topic: "t",
      group: "slow",
      handle: async (batch) => {
        await new Promise<void>((r) => (release = r));
        handled.push(...batch);
      },
    });
    bus.publish("t", "k", 1);
    let handedOn = false;
    const waited = bus.handedOn().then(() => (handedOn = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(handedOn).toBe(false);
    // published after the wait began: not waited for
    bus.publish("t", "k", 2);
    release();
    await waited;
    expect(handled).toEqual([1]);
    release();
    await bus.flush();
    await bus.close();
  });

  it("redelivers a batch whose handler failed", async () => {
    const errors: unknown[] = [];
    const bus = createInProcessBus({ onHandlerError: (_group, error) => errors.push(error) });
    const seen: unknown[] = [];
    let failures = 1;
    await bus.subscribe({
      topic: "t",
      group: "g",
      handle: async (batch) => {
        if (failures-- > 0) throw new Error("transient");
        seen.push(...batch);
      },
    });
    bus.publish("t", "k", { n: 1 });
    await bus.flush();
    expect(seen).toEqual([{ n: 1 }]);
    expect(errors).toHaveLength(1);
  });

  it("dead-letters an event that keeps failing on its own, and delivers the rest of its batch", async () => {
    const dead: [string, unknown, unknown][] = [];
    const bus = createInProcessBus({
      retryDelayMs: 1,
      onDeadLetter: (group, event, error) => dead.push([group, event, error]),
    });
    const seen: unknown[] = [];
    const poison = new Error("poison");
    await bus.subscribe({
      topic: "t",
      group: "g",
      handle: async (batch) => {
        if (batch.includes(2)) throw poison;
        seen.push(...batch);
      },
    });
    for (let i = 0; i < 5; i++) bus.publish("t", String(i), i);
    // without dead-lettering, this flush would never resolve
    await bus.flush();
    bus.publish("t", "later", 5);
    await bus.flush();
    expect(seen).toEqual([0, 1, 3, 4, 5]);
    expect(dead).toEqual([["g", 2, poison]]);
    // the metrics' counts: the batch failed 3 times whole, the poison 8 times alone
    const [stats] = bus.stats().groups;
    expect(stats).toMatchObject({ group: "g", topic: "t", handled: 5, deadLettered: 1, failedAttempts: 11 });
    expect(await stats!.lag()).toBe(0);
    await bus.close();
  });

  it("hands a binary payload to every group as the Buffer published (see also the journal's tests)", async () => {
    const bus = createInProcessBus();
    const frame = Buffer.from([0x00, 0x0a, 0x09, 0xff, 0xfe, 0x00, 0x7b, 0x0d]);
    const seen: Record<string, unknown[]> = { a: [], b: [] };
    for (const group of ["a", "b"])
      await bus.subscribe({ topic: "t", group, handle: async (batch) => void seen[group]!.push(...batch) });
    bus.publish("t", "bin", frame);
    bus.publish("t", "json", { n: 1 });
    await bus.flush();
    for (const group of ["a", "b"]) expect(seen[group]).toEqual([frame, { n: 1 }]);
    expect(seen.a![0]).toBe(frame);
    await bus.close();
  });

  it("throws at publish on a Buffer that is not a binary payload, with or without a subscriber", async () => {
    const bus = createInProcessBus();
    expect(() => bus.publish("nobody", "k", Buffer.from("{}"))).toThrow(
      /must start with the byte 0x00, not 0x7b/,
    );
    await bus.subscribe({ topic: "t", group: "g", handle: async () => {} });
    expect(() => bus.publish("t", "k", Buffer.from([0x01]))).toThrow(/0x00/);
    expect(() => bus.publish("t", "k", Buffer.alloc(0))).toThrow(/must not be empty/);
    await bus.flush();
    expect(bus.stats().groups[0]?.handled).toBe(0);
    await bus.close();
  });

  it("refuses a second subscriber in the same group", async () => {
    const bus = createInProcessBus();
    await bus.subscribe({ topic: "t", group: "g", handle: async () => {} });
    await expect(bus.subscribe({ topic: "t", group: "g", handle: async () => {} })).rejects.toThrow();
  });
});

describe("in-process bus with a linger", () => {
  it("holds a partial batch for the linger, and sends a full batch at once", async () => {
    const bus = createInProcessBus({ lingerMs: 10_000 });
    const batches: unknown[][] = [];
    await bus.subscribe({ topic: "t", group: "g", handle: async (batch) => void batches.push(batch) });
    for (let i = 0; i < 700; i++) bus.publish("t", String(i), i);
    await new Promise((r) => setTimeout(r, 50));
    // The first 512 went as soon as they were there; the rest waits for the linger or a flush,
    // though it was there when the first batch had been handled.
    expect(batches.map((b) => b.length)).toEqual([512]);
    await bus.flush();
    expect(batches.map((b) => b.length)).toEqual([512, 188]);
    bus.publish("t", "late", "late");
    await new Promise((r) => setTimeout(r, 50));
    expect(batches).toHaveLength(2);
    await bus.flush();
    expect(batches.at(-1)).toEqual(["late"]);
    await bus.close();
  });
});
