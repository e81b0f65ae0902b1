import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** Where and how much of an answer a call keeps. */
export interface AnswerLimits {
  /** Past this many bytes a call's answer is kept on disk, not in memory. */
  spillBytes: number;
  /** Bytes kept at most; the rest reaches the caller but is not kept (counted in `omitted`). */
  maxBytes: number;
  /** One file per spilled answer, named by its request id; emptied at start. */
  spillDir: string;
}

/**
 * The bytes of an answer that must be kept (to capture it, or to read usage from a JSON body at
 * its end). The first `spillBytes` stay in memory; past them the whole answer goes to a file as
 * it streams, so a call holds a bounded amount of memory whatever the answer's size. Writes are
 * synchronous: they land in the page cache, and a disk that cannot keep up slows the answer
 * instead of growing a buffer. Nothing here throws: bytes that could not be kept (past the
 * limit, or on a disk that failed) are counted in `omitted`, and the caller's answer goes on.
 */
export class BodyRecorder {
  /** Bytes delivered but not kept. */
  omitted = 0;
  /**
   * When the chunks went out, for a streamed answer: flat `[offset, ms, offset, ms, ...]` (two
   * numbers per chunk, no object per chunk on the hot path); null when no time was given.
   */
  timeline: number[] | null = null;
  /** Bytes pushed so far: the next chunk's offset in the answer. */
  private offset = 0;
  private chunks: Buffer[] = [];
  private kept = 0;
  private fd: number | null = null;
  private whole: Buffer | null = null;
  private released = false;
  /** The limit is reached: nothing more is kept. */
  private full = false;
  private readonly limits: AnswerLimits;
  private readonly name: string;

  constructor(limits: AnswerLimits, name: string) {
    this.limits = limits;
    this.name = name;
  }

  /** Whether the answer outgrew memory: its bytes wait on disk. */
  get onDisk(): boolean {
    return this.fd !== null;
  }

  /** Keeps `chunk`; `atMs` (ms since the request was received) notes when it went out. */
  push(chunk: Buffer, atMs?: number): void {
    if (this.released) return;
    if (atMs !== undefined) {
      this.timeline ??= [];
      this.timeline.push(this.offset, atMs);
    }
    this.offset += chunk.length;
    if (this.full) {
      this.omitted += chunk.length;
      return;
    }
    if (this.kept + chunk.length > this.limits.maxBytes) {
      // cut at a character's start: half a UTF-8 character would turn the capture's text to base64
      const cut = utf8Boundary(chunk, this.limits.maxBytes - this.kept);
      this.omitted += chunk.length - cut;
      this.full = true;
      if (cut === 0) return;
      chunk = chunk.subarray(0, cut);
    }
    if (this.fd === null && this.kept + chunk.length <= this.limits.spillBytes) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    try {
      if (this.fd === null) {
        this.fd = openSync(this.path(), "w", 0o600);
        for (const held of this.chunks) writeAll(this.fd, held);
        this.chunks = [];
      }
      writeAll(this.fd, chunk);
      this.kept += chunk.length;
    } catch {
      this.lose(chunk.length);
    }
  }

  /**
   * Every kept byte, as one buffer (read back from disk when spilled); read once, then reused.
   * A spill file that cannot be read back counts as omitted.
   */
  bytes(): Buffer {
    if (this.whole) return this.whole;
    if (this.fd === null) {
      this.whole = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    } else {
      try {
        this.whole = readFileSync(this.path());
      } catch {
        this.lose(0);
        this.whole = Buffer.alloc(0);
      }
      this.dropFile();
    }
    this.chunks = [];
    return this.whole;
  }

  /** Lets go of the bytes, in memory or on disk; later bytes are not kept. */
  release(): void {
    this.released = true;
    this.dropFile();
    this.chunks = [];
    this.whole = null;
  }

  /** Everything kept so far, and `more` bytes, could not be kept: none is, from now on. */
  private lose(more: number) {
    this.omitted += this.kept + more;
    this.kept = 0;
    this.chunks = [];
    this.dropFile();
    this.released = true;
  }

  /** Built only for an answer that spills: most never do. */
  private path(): string {
    return join(this.limits.spillDir, this.name);
  }

  private dropFile() {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
      rmSync(this.path(), { force: true });
    } catch {
      // what is left goes with the dir at the next start
    }
    this.fd = null;
  }
}

/** `at`, moved back (at most 3 bytes) to the start of the UTF-8 character it falls in. */
export function utf8Boundary(bytes: Buffer, at: number): number {
  let cut = at;
  while (cut > 0 && at - cut < 3 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

function writeAll(fd: number, bytes: Buffer) {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}

/** The spill dir, emptied: what a stopped process left there belongs to calls that never ended. */
export function resetSpillDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
