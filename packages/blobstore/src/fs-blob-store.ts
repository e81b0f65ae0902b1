import { randomBytes } from "node:crypto";
import { link as linkCb, unlink as unlinkCb, writeFile as writeFileCb } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { assertSafeKey, type BlobStore } from "./blob-store.ts";

let tmpPrefix = randomBytes(6).toString("hex");
let tmpCount = 0;
/** A name no other write of this process (or another) uses: a random prefix and a counter. */
function tmpName(): string {
  if (tmpCount === Number.MAX_SAFE_INTEGER) {
    tmpPrefix = randomBytes(6).toString("hex");
    tmpCount = 0;
  }
  return `${tmpPrefix}-${tmpCount++}`;
}

/**
 * Blobs as files under `root`. An object is written whole to a temporary name and then
 * hard-linked into place: link() fails on an existing name, which makes the write create-only,
 * and a reader never sees a partial object.
 */
// The callback forms: the promise API wraps every file in a FileHandle, which costs the calling
// thread more than the write itself for objects of a few KiB.
const writeFile = promisify(writeFileCb);
const link = promisify(linkCb);
const unlink = promisify(unlinkCb);

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
      const tmp = join(tmpDir, tmpName());
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
