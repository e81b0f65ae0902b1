import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AnswerLimits, BodyRecorder, resetSpillDir } from "../src/body-recorder.ts";

describe("an answer's bytes, kept in memory, then on disk, up to a limit", () => {
  let limits: AnswerLimits;
  beforeEach(async () => {
    limits = { spillBytes: 8, maxBytes: 20, spillDir: await mkdtemp(join(tmpdir(), "gw-spill-")) };
  });
  afterEach(() => rm(limits.spillDir, { recursive: true, force: true }));

  const chunks = (...texts: string[]) => texts.map((t) => Buffer.from(t));

  it("keeps a small answer in memory and writes nothing", async () => {
    const answer = new BodyRecorder(limits, "req_small");
    for (const chunk of chunks("abcd", "efgh")) answer.push(chunk);
    expect(answer.onDisk).toBe(false);
    expect(answer.bytes().toString()).toBe("abcdefgh");
    expect(await readdir(limits.spillDir)).toEqual([]);
  });

  it("moves an answer past its memory share to one file as it comes, reads it back whole, and deletes it", async () => {
    const answer = new BodyRecorder(limits, "req_spilled");
    for (const chunk of chunks("abcd", "efgh", "ijkl")) answer.push(chunk);
    expect(answer.onDisk).toBe(true);
    expect(await readdir(limits.spillDir)).toEqual(["req_spilled"]);
    answer.push(Buffer.from("mnop"));
    expect(answer.bytes().toString()).toBe("abcdefghijklmnop");
    expect(answer.omitted).toBe(0);
    expect(await readdir(limits.spillDir)).toEqual([]);
  });

  it("keeps the first maxBytes and counts the rest", () => {
    const answer = new BodyRecorder(limits, "req_long");
    for (const chunk of chunks("0123456789", "0123456789", "abcdef", "ghij")) answer.push(chunk);
    expect(answer.bytes().toString()).toBe("01234567890123456789");
    expect(answer.omitted).toBe(10);
  });

  it("cuts at the start of a UTF-8 character, so that the kept text stays text", () => {
    const answer = new BodyRecorder(limits, "req_utf8");
    // "é" is two bytes: the limit of 20 falls between them
    answer.push(Buffer.from("0123456789012345678é tail"));
    expect(answer.bytes().toString()).toBe("0123456789012345678");
    expect(answer.omitted).toBe(Buffer.byteLength("é tail"));
  });

  it("deletes its file when let go, and keeps nothing pushed after", async () => {
    const answer = new BodyRecorder(limits, "req_released");
    answer.push(Buffer.from("0123456789"));
    answer.release();
    answer.push(Buffer.from("more"));
    expect(await readdir(limits.spillDir)).toEqual([]);
    expect(answer.onDisk).toBe(false);
  });

  it("counts what it could not write as omitted, without throwing", async () => {
    await rm(limits.spillDir, { recursive: true });
    const answer = new BodyRecorder(limits, "req_nodisk");
    for (const chunk of chunks("abcd", "efgh", "ijkl")) answer.push(chunk);
    expect(answer.bytes().length).toBe(0);
    expect(answer.omitted).toBe(12);
  });

  it("empties the spill dir a stopped process left behind", async () => {
    new BodyRecorder(limits, "req_left").push(Buffer.from("0123456789"));
    resetSpillDir(limits.spillDir);
    expect(existsSync(limits.spillDir)).toBe(true);
    expect(await readdir(limits.spillDir)).toEqual([]);
  });
});
