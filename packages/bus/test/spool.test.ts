import { appendFile, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSpool } from "../src/index.ts";

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

  it("keeps records in order across segments and across a reopen, skipping a torn last line", async () => {
    const dir = await fresh();
    const spool = await openSpool(dir);
    expect(spool.pending()).toBe(false);
    await spool.append([{ topic: "t", key: "a", value: JSON.stringify({ n: 1, s: "tab\there\nnl" }) }]);
    const first = await spool.oldest();
    // the segment being read is closed: this lands in a new one
    await spool.append([{ topic: "t", key: "b", value: "2" }]);
    expect(first?.records).toEqual([
      { topic: "t", key: "a", value: JSON.stringify({ n: 1, s: "tab\there\nnl" }) },
    ]);
    await spool.remove(first!.name);

    const segments = await readdir(dir);
    expect(segments).toHaveLength(1);
    await appendFile(join(dir, segments[0]!), '{"t":"t","k":"c"}\t{"torn');
    const again = await openSpool(dir);
    expect(again.pending()).toBe(true);
    const second = await again.oldest();
    expect(second?.records).toEqual([{ topic: "t", key: "b", value: "2" }]);
    await again.remove(second!.name);
    expect(again.pending()).toBe(false);
    expect(await again.oldest()).toBeNull();
  });
});
