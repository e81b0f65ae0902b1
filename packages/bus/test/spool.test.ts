import { appendFile, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
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

  it("skips and counts unreadable lines anywhere in a segment instead of refusing it", async () => {
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
      ].join(""),
    );
    const spool = await openSpool(dir);
    const segment = await spool.oldest();
    expect(segment?.records.map((r) => r.key)).toEqual(["a", "f"]);
    expect(segment?.skipped).toBe(4);
  });

  it("is readable by its owner only: it holds captured prompts", async () => {
    const dir = join(await fresh(), "spool");
    const spool = await openSpool(dir);
    await spool.append([{ topic: "t", key: "a", value: "1" }]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file!))).mode & 0o777).toBe(0o600);
  });
});
