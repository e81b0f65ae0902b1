import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writevSync,
} from "node:fs";
import { join } from "node:path";
import { encodeRecord, parseSegment, type SpoolRecord } from "./spool.ts";

/**
 * A write-ahead log of the events a process publishes, so that a process killed outright (an
 * OOM kill, `docker kill`) loses none it had published: each event is written here, and the next
 * process on the same directory publishes again whatever the last one had not handed on. The
 * events appended in one turn of the event loop are written together, in one plain write (a
 * `writev` of their parts, which the system splits only past 1,024 of them; no fsync, into the
 * page cache: it outlives the process, not the machine) at the end of that turn;
 * a publisher that must not answer before its event is safe waits for `whenWritten`. Records are
 * written as the spool writes them (`encodeRecord`); a segment left in the text format of earlier
 * versions reads too (`parseSegment`).
 */
export interface Journal {
  /**
   * Takes one record and returns its sequence number; it is written with the others of this
   * turn (at once past `batchBytes`). Never throws: a write that fails (a full disk) is reported
   * through `onError`, and its records are not protected against a kill.
   */
  append(record: SpoolRecord): number;
  /** Runs `then` once every record appended so far is written (at once when it is). */
  whenWritten(then: () => void): void;
  /** The sequence number of the next record. */
  readonly next: number;
  /** Every record numbered below `seq` has been handed on (delivered, or in the spool): it may go. */
  settle(seq: number): void;
  /** Closes the journal; a journal whose records were all handed on leaves nothing behind. */
  close(): void;
}

export interface OpenedJournal {
  journal: Journal;
  /** What the last process wrote and may not have handed on, oldest first. */
  leftover: SpoolRecord[];
  /** Deletes the leftover's segments, once their records are published (and journaled) again. */
  dropLeftover(): void;
}

export interface JournalOptions {
  /** A segment is closed past this size and deleted once all its records are handed on. */
  segmentBytes?: number;
  /** Records waiting for the end of the turn are written at once past this many bytes (1 MiB). */
  batchBytes?: number;
  onError(message: string, error: unknown): void;
}

const segmentPattern = /^journal-(\d{12})\.log$/;
const segmentName = (n: number) => `journal-${String(n).padStart(12, "0")}.log`;

/**
 * Opens the journal in `dir` (one directory per process), reading what an earlier process left.
 * It writes only to segments it creates (numbered past every one it found), never to those.
 * Under steady traffic the segment being written is emptied in place whenever everything in it
 * has been handed on (a truncate, not a new file: creating and deleting files at the rate of
 * calls slows every file create on ext4), and segments roll only while events back up.
 * At most one segment's worth of records may be published twice after a kill; consumers are
 * idempotent by request id.
 */
export function openJournal(dir: string, options: JournalOptions): OpenedJournal {
  const segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
  const batchBytes = options.batchBytes ?? 1024 * 1024;
  // owner only: records hold captured prompts and responses
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const found = readdirSync(dir)
    .map((name) => segmentPattern.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const leftover: SpoolRecord[] = [];
  for (const n of found) {
    const { records, skipped } = parseSegment(readFileSync(join(dir, segmentName(n))));
    if (skipped > 0) options.onError(`journal ${segmentName(n)}: ${skipped} torn record(s) skipped`, null);
    leftover.push(...records);
  }

  let segment = (found.at(-1) ?? 0) + 1;
  let fd: number | null = null;
  let bytes = 0;
  let next = 0;
  /**
   * Records appended in this turn and not yet written (each as `encodeRecord`'s two parts), and
   * who waits for their write.
   */
  let waiting: Buffer[] = [];
  let waitingRecords = 0;
  let waitingBytes = 0;
  let waiters: (() => void)[] = [];
  let writeLater: NodeJS.Immediate | null = null;
  /** Segments rolled while their records were not all handed on, with the last number in each. */
  const rolled: { name: string; last: number }[] = [];

  function closeQuietly(descriptor: number) {
    try {
      closeSync(descriptor);
    } catch (error) {
      options.onError("journal: close failed", error);
    }
  }

  function remove(name: string) {
    try {
      unlinkSync(join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        options.onError(`journal: cannot delete ${name}`, error);
    }
  }

  /** Closes the segment being written; it goes once every record up to `last` is handed on. */
  function roll(last: number) {
    if (fd !== null) closeQuietly(fd);
    rolled.push({ name: segmentName(segment), last });
    segment++;
    fd = null;
    bytes = 0;
  }

  function wakeWaiters() {
    const woken = waiters;
    waiters = [];
    // one waiter that throws does not keep the others waiting
    for (const then of woken) {
      try {
        then();
      } catch (error) {
        options.onError("journal: a waiter failed", error);
      }
    }
  }

  /**
   * Writes the records of this turn in one write, then wakes whoever waited for them (also when the
   * write failed: an answer is never held for good). False when the write failed.
   */
  function writeWaiting(): boolean {
    if (writeLater) clearImmediate(writeLater);
    writeLater = null;
    const parts = waiting;
    const records = waitingRecords;
    const size = waitingBytes;
    const last = next - 1;
    waiting = [];
    waitingRecords = 0;
    waitingBytes = 0;
    try {
      if (parts.length === 0) return true;
      fd ??= openSync(join(dir, segmentName(segment)), "a", 0o600);
      writeAll(fd, parts);
      bytes += size;
      if (bytes >= segmentBytes) roll(last);
      return true;
    } catch (error) {
      options.onError(`journal: write failed; ${records} event(s) not protected against a kill`, error);
      // A torn record must stay the last of its segment, not run into the next one.
      if (fd !== null) roll(last);
      return false;
    } finally {
      wakeWaiters();
    }
  }

  const journal: Journal = {
    append(record) {
      const [frame, value] = encodeRecord(record);
      waiting.push(frame, value);
      waitingRecords++;
      waitingBytes += frame.length + value.length;
      if (waitingBytes >= batchBytes) writeWaiting();
      else writeLater ??= setImmediate(writeWaiting);
      return next++;
    },
    whenWritten(then) {
      if (waiting.length === 0) then();
      else waiters.push(then);
    },
    get next() {
      return next;
    },
    settle(seq) {
      // every record is handed on: those not yet written need not be
      if (seq >= next && waiting.length > 0) {
        waiting = [];
        waitingRecords = 0;
        waitingBytes = 0;
        writeWaiting();
      }
      while (rolled.length > 0 && rolled[0]!.last < seq) remove(rolled.shift()!.name);
      if (fd !== null && bytes > 0 && seq >= next) {
        try {
          ftruncateSync(fd);
          bytes = 0;
        } catch (error) {
          options.onError("journal: truncate failed", error);
        }
      }
    },
    close() {
      writeWaiting();
      if (fd === null) return;
      closeQuietly(fd);
      fd = null;
      if (bytes === 0) remove(segmentName(segment));
    },
  };
  return {
    journal,
    leftover,
    dropLeftover() {
      // the records published again are on disk before the copies they replace go; if they could
      // not be written, the old copies stay (published once more at the next start)
      if (!writeWaiting()) return;
      for (const n of found) remove(segmentName(n));
    },
  };
}

/**
 * Writes `parts` one after the other in as few calls as the system allows (the values are not
 * copied into one buffer), going on after a write that took only part of them.
 */
function writeAll(fd: number, parts: Buffer[]) {
  let rest = parts;
  while (rest.length > 0) {
    let written = writevSync(fd, rest);
    let done = 0;
    while (done < rest.length && written >= rest[done]!.length) written -= rest[done++]!.length;
    rest = rest.slice(done);
    if (written > 0) rest[0] = rest[0]!.subarray(written);
  }
}
