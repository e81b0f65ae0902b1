import { appendFile, mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { EventHeaders } from "./event-bus.ts";

/**
 * One event waiting for the broker: the topic, the partition key, the payload's bytes (see
 * `encodePayload`: a binary payload as it was given, any other as UTF-8 JSON), its headers.
 */
export interface SpoolRecord {
  topic: string;
  key: string;
  value: Buffer;
  headers?: EventHeaders;
}

export interface Spool {
  /** Appends to the segment being written. */
  append(records: SpoolRecord[]): Promise<void>;
  /** True while any segment (written now or left by an earlier process) holds records. */
  pending(): boolean;
  /** The bytes of every segment: events waiting on disk for the broker. */
  bytes(): number;
  /**
   * The oldest segment, closed first when it is the one being written (later appends start a
   * new one), or null when the spool is empty. A record that cannot be read (a torn last record
   * left by a crash mid-write, or one torn by a failed append) is skipped and counted in
   * `skipped`: that record never reached the disk whole, and refusing the whole segment for
   * it would hold every later event back forever.
   */
  oldest(): Promise<{ name: string; records: SpoolRecord[]; skipped: number } | null>;
  /** Deletes a segment once its records are with the broker. */
  remove(name: string): Promise<void>;
}

const segmentPattern = /^seg-(\d{12})\.log$/;

/**
 * A durable queue of events on local disk, in segment files of records (see `encodeRecord`).
 * A segment is only ever appended to by the process that created it (a new process, and an
 * append after a failed one, start a new segment), so a segment left by an earlier version in
 * the old text format is never mixed with records in the binary one; both read (`parseSegment`).
 * Not safe for concurrent use: one writer (the bus's pump) drives it.
 */
export async function openSpool(dir: string): Promise<Spool> {
  // owner only: segments hold captured prompts and responses
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const segments = (await readdir(dir))
    .map((name) => segmentPattern.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  let next = (segments.at(-1) ?? 0) + 1;
  let writing: number | null = null;
  const names = (seq: number) => `seg-${String(seq).padStart(12, "0")}.log`;
  // by segment number; a failed append may have written part of what it counts
  const sizes = new Map<number, number>();
  for (const seq of segments) sizes.set(seq, (await stat(join(dir, names(seq)))).size);

  return {
    async append(records) {
      if (records.length === 0) return;
      if (writing === null) {
        writing = next++;
        segments.push(writing);
      }
      const data = Buffer.concat(records.flatMap(encodeRecord));
      const seq = writing;
      sizes.set(seq, (sizes.get(seq) ?? 0) + data.length);
      try {
        await appendFile(join(dir, names(seq)), data, { mode: 0o600 });
      } catch (error) {
        // A failed append (ENOSPC) may have left a torn record: later appends go to a new segment,
        // so it stays that segment's last record instead of running into the next one.
        writing = null;
        throw error;
      }
    },
    pending: () => segments.length > 0,
    bytes: () => {
      let total = 0;
      for (const size of sizes.values()) total += size;
      return total;
    },
    async oldest() {
      const seq = segments[0];
      if (seq === undefined) return null;
      if (seq === writing) writing = null;
      const name = names(seq);
      let data: Buffer;
      try {
        data = await readFile(join(dir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        data = Buffer.alloc(0);
      }
      return { name, ...parseSegment(data) };
    },
    async remove(name) {
      const seq = Number(segmentPattern.exec(name)?.[1]);
      const at = segments.indexOf(seq);
      if (at >= 0) segments.splice(at, 1);
      sizes.delete(seq);
      await unlink(join(dir, name)).catch(() => {});
    },
  };
}

/**
 * A record as spool and journal segments hold it, in two parts written one after the other (so the
 * journal's `writev` need not copy the value): `u32be headLength | head | u32be valueLength`, then
 * the value's bytes.
 * The head is the UTF-8 JSON `{"t":topic,"k":key}`, or `{"t":topic,"k":key,"h":{headers}}` for an
 * event with headers. A segment of these starts with the high byte of its first head's length:
 * 0x00 (a head is far below 16 MiB), and never the `{` (0x7b) that starts a text segment.
 */
export function encodeRecord(record: SpoolRecord): [Buffer, Buffer] {
  const head = JSON.stringify(
    record.headers
      ? { t: record.topic, k: record.key, h: record.headers }
      : { t: record.topic, k: record.key },
  );
  const headLength = Buffer.byteLength(head);
  const frame = Buffer.allocUnsafe(8 + headLength);
  frame.writeUInt32BE(headLength, 0);
  frame.write(head, 4);
  frame.writeUInt32BE(record.value.length, 4 + headLength);
  return [frame, record.value];
}

/**
 * The records of a segment file's bytes, in either format, told apart by the first byte: `{` for
 * the text lines written by earlier versions, anything else for records as `encodeRecord` writes
 * them (whose values are slices of `data`). A record that cannot be read is skipped and counted.
 * In a binary segment it can only be the last (a crash mid-write, or a failed append, after which
 * writes go to a new segment), and nothing after it could be framed: reading stops there.
 */
export function parseSegment(data: Buffer): { records: SpoolRecord[]; skipped: number } {
  if (data[0] === 0x7b) return parseTextSegment(data.toString("utf8"));
  const records: SpoolRecord[] = [];
  for (let at = 0; at < data.length; ) {
    const read = readRecord(data, at);
    if (!read) return { records, skipped: 1 };
    records.push(read.record);
    at = read.end;
  }
  return { records, skipped: 0 };
}

/** The binary record at `at` and where it ends, or null when it is torn. */
function readRecord(data: Buffer, at: number): { record: SpoolRecord; end: number } | null {
  // lengths that run past the end of the segment, or a head that is not one: torn
  if (at + 4 > data.length) return null;
  const headEnd = at + 4 + data.readUInt32BE(at);
  if (headEnd + 4 > data.length) return null;
  const end = headEnd + 4 + data.readUInt32BE(headEnd);
  if (end > data.length) return null;
  const head = parseHead(data.toString("utf8", at + 4, headEnd));
  return head && { record: { ...head, value: data.subarray(headEnd + 4, end) }, end };
}

/**
 * The records of a segment in the text format earlier versions wrote, one line per record:
 * head JSON TAB payload JSON NEWLINE (JSON holds no raw tab or newline, so a line needed no
 * escaping). A line that cannot be read (a torn last line left by a crash mid-write, or one torn
 * by a failed append) is skipped and counted. Values are the UTF-8 bytes of the payload's text.
 */
function parseTextSegment(text: string): { records: SpoolRecord[]; skipped: number } {
  const records: SpoolRecord[] = [];
  const lines = text.split("\n");
  // every append ended its lines with "\n": what follows the last one is "" or a torn line
  let skipped = lines.pop() ? 1 : 0;
  for (const line of lines) {
    const record = parseLine(line);
    if (record) records.push(record);
    else skipped++;
  }
  return { records, skipped };
}

/** A text line's record, or null when the line is not one whole record. */
function parseLine(line: string): SpoolRecord | null {
  const tab = line.indexOf("\t");
  // JSON holds no raw tab: a second one means a torn line ran into the next record
  if (tab < 0 || line.indexOf("\t", tab + 1) >= 0) return null;
  const head = parseHead(line.slice(0, tab));
  return head && { ...head, value: Buffer.from(line.slice(tab + 1)) };
}

/** A record's head (topic, key, headers), or null when the text is not one. */
function parseHead(text: string): Omit<SpoolRecord, "value"> | null {
  let head: unknown;
  try {
    head = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof head !== "object" || head === null || !("t" in head) || !("k" in head)) return null;
  const { t, k } = head;
  if (typeof t !== "string" || typeof k !== "string") return null;
  // headers that do not read as strings are dropped, never the event they came with
  return "h" in head && isHeaders(head.h) ? { topic: t, key: k, headers: head.h } : { topic: t, key: k };
}

function isHeaders(value: unknown): value is EventHeaders {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
