import { readdirSync, readFileSync } from "node:fs";
import { appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInProcessBus } from "../src/in-process-bus.ts";
import { type Journal, openJournal } from "../src/journal.ts";
import { tempDirs } from "./support/spool-dirs.ts";

const freshDir = tempDirs("gw-journal-");
const record = (n: number) => ({ topic: "t", key: `k${n}`, value: JSON.stringify({ n }) });
const errors: string[] = [];
const open = (dir: string, segmentBytes?: number) =>
  openJournal(dir, { segmentBytes, onError: (message) => errors.push(message) });
const written = (journal: Journal) => new Promise<void>((resolve) => journal.whenWritten(resolve));
const lines = async (path: string) => (await readFile(path, "utf8")).split("\n").filter(Boolean);

describe("the journal", () => {
  it("gives back, after a kill, every record not yet settled", async () => {
    const dir = await freshDir();
    const first = open(dir).journal;
    for (let n = 0; n < 3; n++) expect(first.append(record(n))).toBe(n);
    await written(first);
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
    await written(journal);
    const [name] = await readdir(dir);
    expect(await lines(join(dir, name!))).toHaveLength(5);
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
    for (let n = 0; n < 10; n++) {
      journal.append(record(n));
      await written(journal);
    }
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
    await written(journal);
    const [name] = await readdir(dir);
    await appendFile(join(dir, name!), '{"t":"t","k":"k2"}\t{"n":');
    errors.length = 0;
    const reopened = open(dir);
    expect(reopened.leftover.map((r) => r.key)).toEqual(["k0", "k1"]);
    expect(errors.join()).toContain("torn");
    reopened.dropLeftover();
    expect(await readdir(dir)).toEqual([]);
  });

  it("writes the records of one turn together at its end, and wakes who waits only then", async () => {
    const dir = await freshDir();
    const { journal } = open(dir);
    const woken: string[] = [];
    journal.whenWritten(() => woken.push("nothing waiting"));
    expect(woken).toEqual(["nothing waiting"]);
    for (let n = 0; n < 3; n++) journal.append(record(n));
    journal.whenWritten(() => woken.push("three"));
    // nothing is on disk within the turn that appended
    expect(readdirSync(dir)).toEqual([]);
    expect(woken).toEqual(["nothing waiting"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woken).toEqual(["nothing waiting", "three"]);
    const [name] = await readdir(dir);
    expect((await lines(join(dir, name!))).map((l) => l.split("\t")[1])).toEqual([
      '{"n":0}',
      '{"n":1}',
      '{"n":2}',
    ]);
  });

  it("writes at once past its batch size, and what is settled before its write never", async () => {
    const dir = await freshDir();
    const { journal } = openJournal(dir, { batchChars: 40, onError: (m) => errors.push(m) });
    journal.append(record(0));
    expect(readdirSync(dir)).toEqual([]);
    journal.append(record(1));
    // past 40 characters: written in this turn
    const [name] = readdirSync(dir);
    expect(readFileSync(join(dir, name!), "utf8").split("\n").filter(Boolean)).toHaveLength(2);
    journal.append(record(2));
    let woken = false;
    journal.whenWritten(() => {
      woken = true;
    });
    // handed on before the end of its turn: it need not be written, and its waiter is free
    journal.settle(3);
    expect(woken).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await readFile(join(dir, name!), "utf8")).toBe("");
  });

  it("writes what waits for the end of the turn before it closes, and before a leftover goes", async () => {
    const dir = await freshDir();
    const first = open(dir).journal;
    first.append(record(0));
    // closed within the turn that appended: record 0 is written first, not lost
    first.close();
    const second = open(dir);
    expect(second.leftover.map((r) => r.key)).toEqual(["k0"]);
    // published again by the second process, then the old segment goes: the new copy is on disk
    second.journal.append(second.leftover[0]!);
    second.dropLeftover();
    expect(open(dir).leftover.map((r) => r.key)).toEqual(["k0"]);
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
