import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFsBlobStore } from "../src/index.ts";

const key = "captures/org_1/proj_1/api_key_1/2026-11-21/req_1.jsonl";

describe("filesystem blob store", () => {
  let root: string;
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("writes create-only: the first write wins and nothing but the object is left", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    const results = await Promise.all([
      store.putIfAbsent(key, Buffer.from("first")),
      store.putIfAbsent(key, Buffer.from("second")),
    ]);
    expect(results).toEqual([true, false]);
    expect((await store.get(key))!.toString()).toBe("first");
    expect(await store.putIfAbsent(key, Buffer.from("third"))).toBe(false);
    expect(await readdir(root, { recursive: true })).toEqual([
      "captures",
      ...key
        .split("/")
        .slice(1)
        .map((_, i, parts) => ["captures", ...parts.slice(0, i + 1)].join("/")),
    ]);
    expect(await store.get("captures/none.jsonl")).toBeUndefined();
  });

  it("completes an object a crash left torn, and keeps an object that differs", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const path = join(root, key);
    await mkdir(dirname(path), { recursive: true });
    const body = Buffer.from(`${JSON.stringify({ request_id: "req_1", response_body: "x".repeat(5000) })}\n`);
    await writeFile(path, body.subarray(0, 1234));
    const store = createFsBlobStore(root);
    expect(await store.putIfAbsent(key, body)).toBe(true);
    expect((await store.get(key))!.equals(body)).toBe(true);
    expect(await store.putIfAbsent(key, body)).toBe(false);

    const other = "captures/org_1/proj_1/api_key_1/2026-11-21/req_2.jsonl";
    await writeFile(join(root, other), "something else entirely");
    expect(await store.putIfAbsent(other, body)).toBe(false);
    expect((await store.get(other))!.toString()).toBe("something else entirely");
  });

  it("deletes objects, a missing one included, and the folder they left empty", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    const kept = "captures/org_1/proj_1/api_key_1/2026-11-22/req_3.jsonl";
    const other = "captures/org_1/proj_1/api_key_1/2026-11-21/req_2.jsonl";
    for (const k of [key, other, kept]) await store.putIfAbsent(k, Buffer.from(k));
    await store.delete([key, other, "captures/org_1/none.jsonl"]);
    expect(await store.get(key)).toBeUndefined();
    expect(await store.get(other)).toBeUndefined();
    expect((await store.get(kept))!.toString()).toBe(kept);
    expect(await readdir(join(root, "captures/org_1/proj_1/api_key_1"))).toEqual(["2026-11-22"]);
    // the emptied folder is made again for a late write of that day
    expect(await store.putIfAbsent(key, Buffer.from("late"))).toBe(true);
    await expect(store.delete(["../x"])).rejects.toThrow(/unsafe/);
  });

  it("reads a range of an object: exactly its bytes, fewer past the end, none of a missing object", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    await store.putIfAbsent(key, Buffer.from("first line\nsecond line\n"));
    expect((await store.getRange(key, 11, 12))!.toString()).toBe("second line\n");
    expect((await store.getRange(key, 18, 100))!.toString()).toBe("line\n");
    expect(await store.getRange("captures/none.jsonl", 0, 10)).toBeUndefined();
    await expect(store.getRange("../x", 0, 1)).rejects.toThrow(/unsafe/);
  });

  it("refuses keys that could leave the root", async () => {
    root = await mkdtemp(join(tmpdir(), "blobs-"));
    const store = createFsBlobStore(root);
    for (const key of ["../x", "/abs", "a//b", "a/./b", "a/b c"]) {
      await expect(store.putIfAbsent(key, Buffer.from("x"))).rejects.toThrow(/unsafe/);
    }
  });
});
