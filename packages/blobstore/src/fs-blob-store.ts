import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertSafeKey, type BlobStore } from "./blob-store.ts";

/**
 * Blobs as files under `root`. An object is written whole to a temporary name and then
 * hard-linked into place: link() fails on an existing name, which makes the write create-only,
 * and a reader never sees a partial object.
 */
export function createFsBlobStore(root: string): BlobStore {
  const madeDirs = new Set<string>();
  const tmpDir = join(root, ".tmp");

  async function ensureDir(dir: string) {
    if (madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  }

  return {
    async putIfAbsent(key, body) {
      assertSafeKey(key);
      const target = join(root, key);
      await Promise.all([ensureDir(dirname(target)), ensureDir(tmpDir)]);
      const tmp = join(tmpDir, randomBytes(12).toString("hex"));
      await writeFile(tmp, body);
      try {
        await link(tmp, target);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      } finally {
        await unlink(tmp);
      }
    },
    async get(key) {
      assertSafeKey(key);
      try {
        return await readFile(join(root, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
  };
}
