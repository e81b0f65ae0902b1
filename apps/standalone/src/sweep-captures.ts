import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { captureIndexRow } from "@gateway/capture-writer";
import type { Logger } from "@gateway/contracts";
import { type Db, indexCaptures, indexedCaptureKeys, type NewCaptureIndexRow } from "@gateway/db";
import { capturesIn } from "./capture-lines.ts";

const batch = 500;

/** What a sweep did: files deleted (cut short, or holding only captures indexed elsewhere), captures indexed. */
interface Swept {
  torn: number;
  orphaned: number;
  indexed: number;
}

/**
 * After a process on this data dir died (its lock was stale), and once the journal's events are
 * handled (a capture the killed process had not indexed is then indexed from the segment its
 * replay wrote): capture files it left behind. A capture still with no index row (its event was
 * lost to the journal) is indexed from the file; a file then referenced by no index row is
 * deleted: a segment written before the kill whose captures the replay indexed from its own
 * segment, or a file cut short by the kill. Both layouts are swept: segments
 * (`captures/<org>/segments/<day>/<segment>.jsonl`) and the one object per call of earlier
 * releases (`captures/<org>/<project>/<api_key>/<day>/<request_id>.jsonl`).
 * Only day folders from `since` (the dead process's start) on are read, and only files older
 * than the sweep: nothing being written now is touched.
 */
export async function sweepCaptureFiles(db: Db, blobsRoot: string, since: Date, log: Logger) {
  const startedAt = Date.now();
  const swept: Swept = { torn: 0, orphaned: 0, indexed: 0 };
  const keys = await captureFilesSince(blobsRoot, since.toISOString().slice(0, 10));
  for (let i = 0; i < keys.length; i += batch) {
    const files = [];
    for (const key of keys.slice(i, i + batch)) {
      const path = join(blobsRoot, key);
      const info = await stat(path);
      if (info.mtimeMs >= startedAt) continue;
      files.push({ key, path, mtime: info.mtime, ...capturesIn(await readFile(path), key) });
    }
    const known = await indexedCaptureKeys(
      db,
      files.flatMap((f) => f.captures.map((c) => c.envelope.request_id)),
    );
    const rows: NewCaptureIndexRow[] = [];
    for (const file of files) {
      const unindexed = file.captures.filter((c) => !known.has(c.envelope.request_id));
      rows.push(
        ...unindexed.map((c) => captureIndexRow(c.envelope, { key: file.key, ...c.place }, file.mtime)),
      );
      const referenced =
        unindexed.length > 0 || file.captures.some((c) => known.get(c.envelope.request_id) === file.key);
      if (referenced) continue;
      await unlink(file.path);
      if (file.cut || file.captures.length === 0) swept.torn++;
      else swept.orphaned++;
    }
    swept.indexed += rows.length;
    await indexCaptures(db, rows);
  }
  if (swept.torn + swept.orphaned + swept.indexed > 0)
    log.warn("capture files the last process left unfinished", { ...swept });
}

/** The keys of every capture file of either layout, of every day from `fromDay` on. */
async function captureFilesSince(root: string, fromDay: string): Promise<string[]> {
  const keys: string[] = [];
  const list = (dir: string) => readdir(join(root, dir)).catch(() => [] as string[]);
  const addDay = async (dir: string, day: string) => {
    if (day < fromDay) return;
    for (const name of await list(`${dir}/${day}`))
      if (name.endsWith(".jsonl")) keys.push(`${dir}/${day}/${name}`);
  };
  for (const org of await list("captures"))
    for (const project of await list(`captures/${org}`)) {
      if (project === "segments") {
        for (const day of await list(`captures/${org}/segments`))
          await addDay(`captures/${org}/segments`, day);
        continue;
      }
      for (const apiKey of await list(`captures/${org}/${project}`))
        for (const day of await list(`captures/${org}/${project}/${apiKey}`))
          await addDay(`captures/${org}/${project}/${apiKey}`, day);
    }
  return keys;
}
