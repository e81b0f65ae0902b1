import { createInProcessBus } from "@gateway/bus";
import { silentLogger } from "@gateway/contracts";
import { afterEach, describe, expect, it, vi } from "vitest";
import { largeAnswerTurns } from "../src/large-answer-turns.ts";

/** An in-process bus whose one consumer holds every batch until `release()`. */
async function busWithHeldConsumer() {
  const bus = createInProcessBus();
  const held: (() => void)[] = [];
  await bus.subscribe({
    topic: "calls",
    group: "slow",
    handle: () => new Promise<void>((resolve) => held.push(resolve)),
  });
  return {
    bus,
    release() {
      for (const resolve of held.splice(0)) resolve();
    },
  };
}

describe("large answers, recorded in turns", () => {
  afterEach(() => vi.useRealTimers());

  it("records one at a time, each once the event before it is handed on", async () => {
    const { bus, release } = await busWithHeldConsumer();
    const turns = largeAnswerTurns(bus, silentLogger, 60_000);
    const recorded: string[] = [];
    const first = turns.take(() => {
      bus.publish("calls", "a", "a");
      recorded.push("a");
    }, "a");
    const second = turns.take(() => void recorded.push("b"), "b");
    await first;
    await new Promise((r) => setTimeout(r, 20));
    expect(recorded).toEqual(["a"]);
    release();
    await second;
    expect(recorded).toEqual(["a", "b"]);
    await bus.close();
  });

  it("on a stalled bus, waits out one turn, and the turns queued behind it go at once", async () => {
    vi.useFakeTimers();
    const { bus, release } = await busWithHeldConsumer();
    const turns = largeAnswerTurns(bus, silentLogger, 5_000);
    const recorded: string[] = [];
    const publish = (id: string) => () => {
      bus.publish("calls", id, id);
      recorded.push(id);
    };
    for (const id of ["a", "b", "c", "d"]) void turns.take(publish(id), id);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(recorded).toEqual(["a"]);
    // one wait out: the bus counts as stalled, and nothing after waits on it
    await vi.advanceTimersByTimeAsync(1);
    expect(recorded).toEqual(["a", "b", "c", "d"]);
    release();
    await bus.close();
  });

  it("a turn whose recording throws is logged, and the next one still goes", async () => {
    const { bus, release } = await busWithHeldConsumer();
    release();
    const turns = largeAnswerTurns(bus, silentLogger, 60_000);
    await turns.take(() => {
      throw new Error("disk gone");
    }, "a");
    let ran = false;
    await turns.take(() => {
      ran = true;
    }, "b");
    expect(ran).toBe(true);
    await bus.close();
  });
});
