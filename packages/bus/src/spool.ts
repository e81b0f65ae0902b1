import { appendFile, mkdir, readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { EventHeaders } from "./event-bus.ts";

/** One event waiting for the broker: the topic, the partition key, the payload as JSON, its headers. */
export interface SpoolRecord {
  topic: string;
  key: string;
  value: string;
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
   * new one), or null when the spool is empty. A line that cannot be read (a torn last line
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
 * A durable queue of events on local disk, in segment files of one line per record:
 * `{"t":topic,"k":key}` TAB payload-JSON, or `{"t":topic,"k":key,"h":{headers}}` for an event
 * with headers (lines written before headers existed have none and read as before). JSON never holds a raw tab or newline, so the line
 * format needs no escaping and the (possibly large) payload is not encoded twice.
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
      const lines = records.map(recordLine).join("");
      const seq = writing;
      sizes.set(seq, (sizes.get(seq) ?? 0) + Buffer.byteLength(lines));
      try {
        await appendFile(join(dir, names(seq)), lines, { mode: 0o600 });
      } catch (error) {
        // A failed append (ENOSPC) may have left a torn line: later appends go to a new segment,
        // so it stays that segment's last line instead of running into the next record.
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
      let text: string;
      try {
        text = await readFile(join(dir, name), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        text = "";
      }
      return { name, ...parseSegment(text) };
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

/** A record as one line of a spool or journal segment. */
export function recordLine(record: SpoolRecord): string {
  const head = record.headers
    ? { t: record.topic, k: record.key, h: record.headers }
    : { t: record.topic, k: record.key };
  return `${JSON.stringify(head)}\t${record.value}\n`;
}

/**
 * The records of a segment's text; a line that cannot be read (a torn last line left by a crash
 * mid-write, or one torn by a failed append) is skipped and counted.
 */
export function parseSegment(text: string): { records: SpoolRecord[]; skipped: number } {
  const records: SpoolRecord[] = [];
  const lines = text.split("\n");
  // every append ends its lines with "\n": what follows the last one is "" or a torn line
  let skipped = lines.pop() ? 1 : 0;
  for (const line of lines) {
    const record = parseLine(line);
    if (record) records.push(record);
    else skipped++;
  }
  return { records, skipped };
}

/** A spool line's record, or null when the line is not one whole record. */
function parseLine(line: string): SpoolRecord | null {
  const tab = line.indexOf("\t");
  // JSON holds no raw tab: a second one means a torn line ran into the next record
  if (tab < 0 || line.indexOf("\t", tab + 1) >= 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(line.slice(0, tab));
  } catch {
    return null;
  }
  if (typeof head !== "object" || head === null || !("t" in head) || !("k" in head)) return null;
  const { t, k } = head;
  if (typeof t !== "string" || typeof k !== "string") return null;
  const record: SpoolRecord = { topic: t, key: k, value: line.slice(tab + 1) };
  // headers that do not read as strings are dropped, never the event they came with
  if ("h" in head && isHeaders(head.h)) record.headers = head.h;
  return record;
}

function isHeaders(value: unknown): value is EventHeaders {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
