import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { parseSegment, type SpoolRecord } from "../../src/index.ts";

/** A maker of fresh temporary directories, all removed after the test file. Call at top level. */
export function tempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}

/** Every event record in a spool directory's segment files, in the order of their segments. */
export async function spooledRecords(dir: string): Promise<SpoolRecord[]> {
  // the spool's segments, not the journal beside them
  const files = (await readdir(dir)).filter((f) => f.startsWith("seg-")).sort();
  const segments = await Promise.all(files.map((f) => readFile(join(dir, f))));
  return segments.flatMap((data) => parseSegment(data).records);
}
