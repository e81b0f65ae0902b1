import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFsBlobStore } from "../src/index.ts";

describe("filesystem blob store", () => {
  let root: string;
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("writes create-only: the first write wins and leaves no temporary files", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    const key = "captures/org_1/proj_1/api_key_1/2026-11-21/req_1.jsonl";
    const results = await Promise.all([
      store.putIfAbsent(key, Buffer.from("first")),
      store.putIfAbsent(key, Buffer.from("second")),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(["first", "second"]).toContain((await store.get(key))!.toString());
    expect(await store.putIfAbsent(key, Buffer.from("third"))).toBe(false);
    expect(await readdir(join(root, ".tmp"))).toEqual([]);
    expect(await store.get("captures/none.jsonl")).toBeUndefined();
  });

  it("refuses keys that could leave the root", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    for (const key of ["../x", "/abs", "a//b", "a/./b", "a/b c"]) {
      await expect(store.putIfAbsent(key, Buffer.from("x"))).rejects.toThrow(/unsafe/);
    }
  });
});
