import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInProcessBus } from "../src/in-process-bus.ts";
import { openJournal } from "../src/journal.ts";
import { tempDirs } from "./support/spool-dirs.ts";

const freshDir = tempDirs("gw-journal-");
const record = (n: number) => ({ topic: "t", key: `k${n}`, value: JSON.stringify({ n }) });
const errors: string[] = [];
const open = (dir: string, segmentBytes?: number) =>
  openJournal(dir, { segmentBytes, onError: (message) => errors.push(message) });

describe("the journal", () => {
  it("gives back, after a kill, every record not yet settled", async () => {
    const dir = await freshDir();
    const first = open(dir).journal;
    for (let n = 0; n < 3; n++) expect(first.append(record(n))).toBe(n);
    first.settle(1);
    // killed: never closed
    const second = open(dir);
    expect(second.leftover.map((r) => r.key)).toContain("k2");
    expect(second.leftover.map((r) => r.key)).toContain("k1");
  });

  it("is emptied in place once everything in it is settled, and leaves nothing after a clean close", async () => {
    const dir = await freshDir();
    const { journal } = open(dir);
    for (let n = 0; n < 5; n++) journal.append(record(n));
    const [name] = await readdir(dir);
    expect((await readFile(join(dir, name!), "utf8")).split("\n").filter(Boolean)).toHaveLength(5);
    journal.settle(5);
    expect(await readFile(join(dir, name!), "utf8")).toBe("");
    expect(open(dir).leftover).toEqual([]);
    journal.append(record(5));
    journal.settle(6);
    journal.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it("rolls segments while records back up, and deletes each once its records are settled", async () => {
    const dir = await freshDir();
    const { journal } = open(dir, 100);
    for (let n = 0; n < 10; n++) journal.append(record(n));
    const rolled = (await readdir(dir)).length;
    expect(rolled).toBeGreaterThan(2);
    journal.settle(5);
    const left = await readdir(dir);
    expect(left.length).toBeLessThan(rolled);
    const keys = open(dir).leftover.map((r) => r.key);
    // nothing unsettled is gone
    for (let n = 5; n < 10; n++) expect(keys).toContain(`k${n}`);
  });

  it("skips a torn last line and reads every whole record", async () => {
    const dir = await freshDir();
    const { journal } = open(dir);
    journal.append(record(0));
    journal.append(record(1));
    const [name] = await readdir(dir);
    await appendFile(join(dir, name!), '{"t":"t","k":"k2"}\t{"n":');
    errors.length = 0;
    const reopened = open(dir);
    expect(reopened.leftover.map((r) => r.key)).toEqual(["k0", "k1"]);
    expect(errors.join()).toContain("torn");
    reopened.dropLeftover();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("the in-process bus with a journal", () => {
  it("publishes again, at the next start, what no consumer had handled when the process died", async () => {
    const dir = await freshDir();
    const first = createInProcessBus({ journal: open(dir) });
    const handled: unknown[] = [];
    await first.subscribe({ topic: "t", group: "slow", handle: () => new Promise(() => {}) });
    await first.subscribe({
      topic: "t",
      group: "quick",
      handle: async (batch) => void handled.push(...batch),
    });
    first.publish("t", "a", { n: 1 });
    first.publish("t", "b", { n: 2 });
    await new Promise((r) => setTimeout(r, 50));
    expect(handled).toEqual([{ n: 1 }, { n: 2 }]);
    // "killed": the slow group never finished, and nothing was closed

    const second = createInProcessBus({ journal: open(dir) });
    const replayed: unknown[] = [];
    await second.subscribe({
      topic: "t",
      group: "slow",
      handle: async (batch) => void replayed.push(...batch),
    });
    expect(second.replayJournal()).toBe(2);
    await second.flush();
    expect(replayed).toEqual([{ n: 1 }, { n: 2 }]);
    await second.close();
    // everything handled and closed cleanly: the next start has nothing to replay
    const third = createInProcessBus({ journal: open(dir) });
    expect(third.replayJournal()).toBe(0);
  });
});
