/**
 * `pnpm bench:store`: what the all-in-one process's store spends per call event, alone and with
 * little noise: the SQLite store as `pnpm start` opens it (a fresh file, migrated), and
 * `BENCH_CONSUMER_EVENTS` call events built as `pnpm bench:consumers` builds them, stored
 * `BENCH_BATCH` to a transaction by `recordCallBatch` (the captures' index rows, the call rows with
 * their rollups and histograms, their pricing) as the process's one consumer stores a delivered
 * batch. Reported per round (`BENCH_ROUNDS`): the CPU per event of the storing alone (the events
 * are built and read first), and the WAL frames (4 KiB pages) written per event, checkpoints off
 * so that every frame stays counted: a deterministic measure of the write work, which a shared
 * machine's speed does not move. Compare two batch sizes, or two versions, round by round.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCallEventsWithBodies, silentLogger } from "@gateway/contracts";
import { openDb, recordCallBatch, runMigrations, type SqliteDb } from "@gateway/db";
import { captureIndexRow } from "../../apps/capture-writer/src/capture-writer.ts";
import { callRow } from "../../apps/costing-worker/src/call-row.ts";
import { buildCallEvents } from "./call-events.ts";

const events = Number(process.env.BENCH_CONSUMER_EVENTS ?? 15_000);
const batch = Number(process.env.BENCH_BATCH ?? 60);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

async function round(): Promise<{ cpuUs: number; frames: number }> {
  const dir = mkdtempSync(join(tmpdir(), "gw-bench-store-"));
  const store = await openDb({ kind: "sqlite", file: join(dir, "gateway.db") });
  try {
    await runMigrations(store);
    const raw = (store.db as SqliteDb).connection.raw;
    raw.exec("pragma wal_autocheckpoint = 0; pragma wal_checkpoint(truncate)");
    const org = {
      orgId: "org_bench",
      projectId: "proj_bench",
      workloadId: "wl_bench",
      apiKeyId: "key_bench",
      apiKey: "",
    };
    const limits = { spillBytes: 1 << 20, maxBytes: 32 << 20, spillDir: join(dir, "answers") };
    const read = readCallEventsWithBodies(
      buildCallEvents(org, events, limits).map((e) => e.frame),
      silentLogger,
    );
    const before = process.cpuUsage();
    for (let i = 0; i < read.length; i += batch) {
      const calls = read.slice(i, i + batch).map((r) => r.event);
      const segment = `captures/${org.orgId}/segments/2026-11-28/seg_${i}.jsonl`;
      await recordCallBatch(store.db, {
        calls: calls.map(callRow),
        captures: calls.map((e, n) =>
          captureIndexRow(e, { key: segment, offset: n * 4096, size: 4096 }, new Date()),
        ),
        keyUses: calls.map((e) => ({ keyId: e.api_key_id, at: e.received_at })),
      });
    }
    const used = process.cpuUsage(before);
    const { log } = raw.prepare("pragma wal_checkpoint(passive)").get() as { log: number };
    return { cpuUs: (used.user + used.system) / read.length, frames: log / read.length };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (let r = 1; r <= rounds; r++) {
  const { cpuUs, frames } = await round();
  console.log(
    `round ${r}: ${cpuUs.toFixed(1)} µs of CPU and ${frames.toFixed(2)} WAL frames per event (${batch} a transaction)`,
  );
}
