import { readdirSync, readFileSync } from "node:fs";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInProcessBus } from "../src/in-process-bus.ts";
import { type Journal, openJournal } from "../src/journal.ts";
import { encodeRecord, parseSegment, type SpoolRecord } from "../src/spool.ts";
import { tempDirs } from "./support/spool-dirs.ts";

const freshDir = tempDirs("gw-journal-");
const record = (n: number): SpoolRecord => ({
  topic: "t",
  key: `k${n}`,
  value: Buffer.from(JSON.stringify({ n })),
});
const errors: string[] = [];
const open = (dir: string, segmentBytes?: number) =>
  openJournal(dir, { segmentBytes, onError: (message) => errors.push(message) });
const written = (journal: Journal) => new Promise<void>((resolve) => journal.whenWritten(resolve));
/** The records in a segment file, every one whole. */
const recordsIn = async (path: string) => {
  const { records, skipped } = parseSegment(await readFile(path));
  expect(skipped).toBe(0);
  return records;
};

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
    expect(await recordsIn(join(dir, name!))).toHaveLength(5);
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

  it("skips a torn last record and reads every whole record", async () => {
    const dir = await freshDir();
    const { journal } = open(dir);
    journal.append(record(0));
    journal.append(record(1));
    await written(journal);
    const [name] = await readdir(dir);
    const torn = Buffer.concat(encodeRecord(record(2)));
    await appendFile(join(dir, name!), torn.subarray(0, torn.length - 2));
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
    expect((await recordsIn(join(dir, name!))).map((r) => r.value.toString())).toEqual([
      '{"n":0}',
      '{"n":1}',
      '{"n":2}',
    ]);
  });

  it("writes at once past its batch size, and what is settled before its write never", async () => {
    const dir = await freshDir();
    // a record of these is 32 bytes: 8 of lengths, 17 of head, 7 of value
    const { journal } = openJournal(dir, { batchBytes: 40, onError: (m) => errors.push(m) });
    journal.append(record(0));
    expect(readdirSync(dir)).toEqual([]);
    journal.append(record(1));
    // past 40 bytes: written in this turn
    const [name] = readdirSync(dir);
    expect(parseSegment(readFileSync(join(dir, name!))).records).toHaveLength(2);
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

  it("reads a segment left in the text format of earlier versions, and writes its own in a new one", async () => {
    const dir = await freshDir();
    await writeFile(
      join(dir, "journal-000000000003.log"),
      '{"t":"t","k":"old"}\t{"s":"é"}\n{"t":"t","k":"torn"}\t{"s":',
    );
    errors.length = 0;
    const opened = open(dir);
    expect(opened.leftover).toEqual([{ topic: "t", key: "old", value: Buffer.from('{"s":"é"}') }]);
    expect(errors.join()).toContain("torn");
    opened.journal.append(opened.leftover[0]!);
    opened.journal.append(record(1));
    opened.dropLeftover();
    expect(await readdir(dir)).toEqual(["journal-000000000004.log"]);
    expect(open(dir).leftover).toEqual([
      { topic: "t", key: "old", value: Buffer.from('{"s":"é"}') },
      record(1),
    ]);
  });

  it("keeps binary values byte for byte, a large one too", async () => {
    const dir = await freshDir();
    const { journal } = open(dir);
    const values = [
      Buffer.from([0x00, 0x0a, 0x09, 0xff, 0xfe, 0x0d]),
      Buffer.concat([Buffer.from([0]), Buffer.alloc(300_000, 0xfe)]),
    ];
    for (const [i, value] of values.entries()) journal.append({ topic: "t", key: `b${i}`, value });
    await written(journal);
    const leftover = open(dir).leftover;
    expect(leftover.map((r) => r.key)).toEqual(["b0", "b1"]);
    // (compared whole: vitest's element-wise diff of 300 KB takes a second)
    expect(leftover.every((r, i) => r.value.equals(values[i]!))).toBe(true);
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
  it("hands a binary payload to every group as a Buffer of its bytes, and replays it byte for byte", async () => {
    const dir = await freshDir();
    const frame = () => Buffer.from([0x00, 0x0a, 0x09, 0xff, 0xfe, 0x00, 0x7b, 0x0d, 0x0a]);
    const first = createInProcessBus({ journal: open(dir) });
    const handled: Record<string, unknown[]> = { a: [], b: [] };
    for (const group of ["a", "b"])
      await first.subscribe({
        topic: "t",
        group,
        handle: async (batch) => void handled[group]!.push(...batch),
      });
    await first.subscribe({ topic: "t", group: "slow", handle: () => new Promise(() => {}) });
    first.publish("t", "bin", frame(), { traceparent: "00-z" });
    first.publish("t", "json", { n: 1 });
    await new Promise<void>((resolve) => first.whenJournaled(resolve));
    await new Promise((r) => setTimeout(r, 50));
    for (const group of ["a", "b"]) {
      expect(Buffer.isBuffer(handled[group]![0])).toBe(true);
      expect(handled[group]).toEqual([frame(), { n: 1 }]);
    }
    // "killed": the slow group never finished, and nothing was closed

    const second = createInProcessBus({ journal: open(dir) });
    const seen: unknown[] = [];
    const headers: unknown[] = [];
    await second.subscribe({
      topic: "t",
      group: "slow",
      handle: async (batch, h) => {
        seen.push(...batch);
        headers.push(...h);
      },
    });
    expect(second.replayJournal()).toBe(2);
    await second.flush();
    expect(Buffer.isBuffer(seen[0])).toBe(true);
    expect(seen).toEqual([frame(), { n: 1 }]);
    expect(headers).toEqual([{ traceparent: "00-z" }, undefined]);
    await second.close();
  });

  it("replays what an earlier version journaled as text lines", async () => {
    const dir = await freshDir();
    await writeFile(join(dir, "journal-000000000001.log"), '{"t":"t","k":"a"}\t{"n":1}\n');
    const bus = createInProcessBus({ journal: open(dir) });
    const seen: unknown[] = [];
    await bus.subscribe({ topic: "t", group: "g", handle: async (batch) => void seen.push(...batch) });
    expect(bus.replayJournal()).toBe(1);
    await bus.flush();
    expect(seen).toEqual([{ n: 1 }]);
    await bus.close();
    expect(await readdir(dir)).toEqual([]);
  });
});
