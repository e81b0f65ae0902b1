import { appendFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, openSpool, parseSegment, type SpoolRecord } from "../src/index.ts";

/** A binary payload's bytes: every byte a text format could trip on, and invalid UTF-8. */
const binary = Buffer.from([0x00, 0x0a, 0x09, 0xff, 0xfe, 0x7b, 0x22, 0x0d, 0x00, 0x80]);
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const bytesOf = (records: SpoolRecord[]) => Buffer.concat(records.flatMap(encodeRecord));

describe("spool", () => {
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), "spool-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it("keeps records in order across segments and across a reopen, skipping a torn last record", async () => {
    const dir = await fresh();
    const spool = await openSpool(dir);
    expect(spool.pending()).toBe(false);
    await spool.append([{ topic: "t", key: "a", value: json({ n: 1, s: "tab\there\nnl" }) }]);
    const first = await spool.oldest();
    // the segment being read is closed: this lands in a new one
    await spool.append([{ topic: "t", key: "b", value: binary }]);
    expect(first?.records).toEqual([{ topic: "t", key: "a", value: json({ n: 1, s: "tab\there\nnl" }) }]);
    await spool.remove(first!.name);

    const segments = await readdir(dir);
    expect(segments).toHaveLength(1);
    const torn = bytesOf([{ topic: "t", key: "c", value: json({ torn: true }) }]);
    await appendFile(join(dir, segments[0]!), torn.subarray(0, torn.length - 3));
    const again = await openSpool(dir);
    expect(again.pending()).toBe(true);
    const second = await again.oldest();
    expect(second?.records).toEqual([{ topic: "t", key: "b", value: binary }]);
    expect(second?.skipped).toBe(1);
    await again.remove(second!.name);
    expect(again.pending()).toBe(false);
    expect(await again.oldest()).toBeNull();
  });

  it("writes length-prefixed records that carry any bytes, binary or JSON, with their headers", async () => {
    const dir = await fresh();
    const spool = await openSpool(dir);
    const records: SpoolRecord[] = [
      { topic: "t", key: "bin", value: binary, headers: { traceparent: "00-x" } },
      { topic: "t", key: "json", value: json({ s: "é\t\n" }) },
    ];
    await spool.append(records);
    const [name] = await readdir(dir);
    const data = await readFile(join(dir, name!));
    // u32be head length, head JSON, u32be value length, value
    const head = '{"t":"t","k":"bin","h":{"traceparent":"00-x"}}';
    expect(data.readUInt32BE(0)).toBe(head.length);
    expect(data.toString("utf8", 4, 4 + head.length)).toBe(head);
    expect(data.readUInt32BE(4 + head.length)).toBe(binary.length);
    expect(data.subarray(8 + head.length, 8 + head.length + binary.length)).toEqual(binary);
    expect(spool.bytes()).toBe(data.length);
    const segment = await (await openSpool(dir)).oldest();
    expect(segment).toEqual({ name, records, skipped: 0 });
  });

  it("reads a binary segment up to a torn last record, wherever it tore, and counts it", async () => {
    const whole: SpoolRecord[] = [
      { topic: "t", key: "a", value: json({ n: 1 }) },
      { topic: "t", key: "b", value: binary },
    ];
    const last = bytesOf([{ topic: "t", key: "c", value: binary }]);
    const headLength = last.readUInt32BE(0);
    // in the head's length, the head, the value's length, the value
    for (const cut of [2, 4 + 5, 4 + headLength + 2, last.length - 1]) {
      const read = parseSegment(Buffer.concat([bytesOf(whole), last.subarray(0, cut)]));
      expect(read, `cut at ${cut}`).toEqual({ records: whole, skipped: 1 });
    }
    // lengths that fit, but a head that is not one (garbage after a crash): reading stops there
    const garbage = Buffer.from([0, 0, 0, 2, 0x7b, 0x7b, 0, 0, 0, 0]);
    expect(parseSegment(Buffer.concat([bytesOf(whole), garbage, bytesOf(whole)]))).toEqual({
      records: whole,
      skipped: 1,
    });
    expect(parseSegment(Buffer.alloc(0))).toEqual({ records: [], skipped: 0 });
  });

  it("reads a segment in the text format of earlier versions, values as the bytes of their JSON", async () => {
    const dir = await fresh();
    await writeFile(
      join(dir, "seg-000000000007.log"),
      `{"t":"t","k":"a"}\t{"s":"é"}\n{"t":"t","k":"b","h":{"traceparent":"00-y"}}\t[1,2]\n`,
    );
    const spool = await openSpool(dir);
    // a new process never appends to a segment it did not create: this goes to a binary one
    await spool.append([{ topic: "t", key: "c", value: binary }]);
    expect((await readdir(dir)).sort()).toEqual(["seg-000000000007.log", "seg-000000000008.log"]);
    const old = await spool.oldest();
    expect(old?.records).toEqual([
      { topic: "t", key: "a", value: Buffer.from('{"s":"é"}') },
      { topic: "t", key: "b", value: Buffer.from("[1,2]"), headers: { traceparent: "00-y" } },
    ]);
    expect(old?.skipped).toBe(0);
    await spool.remove(old!.name);
    expect((await spool.oldest())?.records).toEqual([{ topic: "t", key: "c", value: binary }]);
  });

  it("skips and counts unreadable lines anywhere in a text segment instead of refusing it", async () => {
    const dir = await fresh();
    const good = (k: string) => `${JSON.stringify({ t: "t", k })}\t{"n":1}\n`;
    await writeFile(
      join(dir, "seg-000000000001.log"),
      [
        good("a"),
        // torn in the head, then the next record appended after it
        '{"t":"t","k',
        good("b"),
        // torn in the payload, then the next record appended after it
        '{"t":"t","k":"c"}\t{"n',
        good("d"),
        "no tab at all\n",
        '{"t":1,"k":"e"}\t2\n',
        good("f"),
        // torn last line
        '{"t":"t","k":"g"}\t{"n":',
      ].join(""),
    );
    const spool = await openSpool(dir);
    const segment = await spool.oldest();
    expect(segment?.records.map((r) => r.key)).toEqual(["a", "f"]);
    expect(segment?.records[0]?.value).toEqual(Buffer.from('{"n":1}'));
    expect(segment?.skipped).toBe(5);
  });

  it("is readable by its owner only: it holds captured prompts", async () => {
    const dir = join(await fresh(), "spool");
    const spool = await openSpool(dir);
    await spool.append([{ topic: "t", key: "a", value: json(1) }]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file!))).mode & 0o777).toBe(0o600);
  });
});
