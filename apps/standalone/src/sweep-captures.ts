import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { captureIndexRow } from "@gateway/capture-writer";
import type { Logger } from "@gateway/contracts";
import { type Db, indexCaptures, indexedCaptureIds } from "@gateway/db";

const batch = 500;

/**
 * After a process on this data dir died (its lock was stale), and once the journal's events are
 * handled: capture files it left with no index row. A torn one (a prefix of its envelope, cut by
 * the kill) is deleted; a whole one (its index insert was lost) is indexed, so that it is listed.
 * Only day folders from `since` (the dead process's start) on are read, and only files older
 * than the sweep: nothing being written now is touched.
 */
export async function sweepCaptureFiles(db: Db, blobsRoot: string, since: Date, log: Logger) {
  const startedAt = Date.now();
  const fromDay = since.toISOString().slice(0, 10);
  const files = await captureFilesSince(blobsRoot, fromDay);
  let torn = 0;
  let indexed = 0;
  for (let i = 0; i < files.length; i += batch) {
    const chunk = files.slice(i, i + batch);
    const known = await indexedCaptureIds(
      db,
      chunk.map((f) => f.requestId),
    );
    const rows = [];
    for (const file of chunk) {
      if (known.has(file.requestId)) continue;
      const path = join(blobsRoot, file.key);
      const info = await stat(path);
      if (info.mtimeMs >= startedAt) continue;
      const envelope = wholeEnvelope(await readFile(path), file.requestId);
      if (envelope) {
        rows.push(captureIndexRow(envelope, file.key, info.size, info.mtime));
      } else {
        await unlink(path);
        torn++;
      }
    }
    indexed += rows.length;
    await indexCaptures(db, rows);
  }
  if (torn + indexed > 0) log.warn("capture files the last process left unfinished", { torn, indexed });
}

/** `captures/<org>/<project>/<key>/<day>/<request_id>.jsonl` of every day from `fromDay` on. */
async function captureFilesSince(root: string, fromDay: string) {
  const files: { key: string; requestId: string }[] = [];
  const list = (dir: string) => readdir(join(root, dir)).catch(() => [] as string[]);
  for (const org of await list("captures"))
    for (const project of await list(`captures/${org}`))
      for (const apiKey of await list(`captures/${org}/${project}`))
        for (const day of await list(`captures/${org}/${project}/${apiKey}`)) {
          if (day < fromDay) continue;
          const dir = `captures/${org}/${project}/${apiKey}/${day}`;
          for (const name of await list(dir))
            if (name.endsWith(".jsonl")) files.push({ key: `${dir}/${name}`, requestId: name.slice(0, -6) });
        }
  return files;
}

/** The envelope, when the file holds all of it (one JSON line, newline-ended, of this request). */
function wholeEnvelope(bytes: Buffer, requestId: string) {
  if (bytes.at(-1) !== 0x0a) return null;
  try {
    const envelope = JSON.parse(bytes.toString("utf8")) as Parameters<typeof captureIndexRow>[0];
    return envelope.request_id === requestId &&
      [
        envelope.org_id,
        envelope.project_id,
        envelope.workload_id,
        envelope.api_key_id,
        envelope.received_at,
      ].every((v) => typeof v === "string")
      ? envelope
      : null;
  } catch {
    return null;
  }
}
