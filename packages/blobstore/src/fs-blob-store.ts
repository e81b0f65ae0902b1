import { readFile as readFileCb, writeFile as writeFileCb } from "node:fs";
import { mkdir, open, rmdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { assertSafeKey, type BlobStore } from "./blob-store.ts";

// The callback forms: the promise API wraps every file in a FileHandle, which costs the calling
// thread more than the write itself for objects of a few KiB.
const writeFile = promisify(writeFileCb);
const readFile = promisify(readFileCb);

/** A rejection handler that swallows the errors of these codes and rethrows any other. */
const unlessCode =
  (...codes: string[]) =>
  (error: NodeJS.ErrnoException) => {
    if (!codes.includes(error.code ?? "")) throw error;
  };

/**
 * Blobs as files under `root`. An object is created in place with O_EXCL (`wx`), which makes the
 * write create-only. There is deliberately no temporary file: writing one and unlinking it per
 * object made ext4's inode allocator skip past thousands of recently deleted inodes on every
 * create, which cost more CPU than the rest of a request (bench/RESULTS.md).
 *
 * A crash can leave a torn object (a prefix of its body). Readers never meet one: the capture
 * writer lists an object only once its index row exists, which it writes after the put resolved.
 * The next put of the same key finds the prefix and completes it. Puts of one key take turns in
 * this process, so completing a torn object never races a first write.
 */
export function createFsBlobStore(root: string): BlobStore {
  const madeDirs = new Set<string>();
  const putting = new Map<string, Promise<boolean>>();

  async function ensureDir(dir: string) {
    if (madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    madeDirs.add(dir);
  }

  async function put(path: string, body: Buffer): Promise<boolean> {
    await ensureDir(dirname(path));
    try {
      await writeFile(path, body, { flag: "wx" });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const existing = await readFile(path);
    const torn = existing.length < body.length && body.subarray(0, existing.length).equals(existing);
    if (!torn) return false;
    await writeFile(path, body);
    return true;
  }

  return {
    async putIfAbsent(key, body) {
      assertSafeKey(key);
      const path = join(root, key);
      const before = putting.get(path);
      const write = () => put(path, body);
      const done = before ? before.then(write, write) : write();
      putting.set(path, done);
      const forget = () => {
        if (putting.get(path) === done) putting.delete(path);
      };
      done.then(forget, forget);
      return done;
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
    async delete(keys) {
      const dirs = new Set<string>();
      for (const key of keys) {
        assertSafeKey(key);
        const path = join(root, key);
        await unlink(path).catch(unlessCode("ENOENT"));
        dirs.add(dirname(path));
      }
      // A day folder emptied by retention goes too, so the data dir does not fill with empty
      // folders; one still holding files stays (ENOTEMPTY), and a later put makes it again.
      for (const dir of dirs) {
        await rmdir(dir).then(() => madeDirs.delete(dir), unlessCode("ENOENT", "ENOTEMPTY"));
      }
    },
    async getRange(key, offset, length) {
      assertSafeKey(key);
      const file = await open(join(root, key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined;
        throw error;
      });
      if (!file) return undefined;
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await file.read(buffer, 0, length, offset);
        return buffer.subarray(0, bytesRead);
      } finally {
        await file.close();
      }
    },
  };
}
