import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@gateway/contracts";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  type Db,
  type DbHandle,
  openDb,
  priceCallsById,
  queryRows,
  recordCalls,
  toCount,
  upgradeFromPglite,
} from "../src/index.ts";
import { openPgliteStore } from "../src/pglite-import/index.ts";
import { allReports } from "./support/all-reports.ts";
import { generatedCall, seedReportStore } from "./support/report-calls.ts";

const tables = [
  "orgs",
  "api_keys",
  "projects",
  "workloads",
  "catalog_models",
  "catalog_deployments",
  "org_retention",
  "prices",
  "limits",
  "calls",
  "call_rollups_hourly",
  "call_rollups_minutely",
  "call_latency_hourly",
  "spend_daily",
  "capture_index",
  "idempotency_keys",
];

async function rowCounts(db: Db): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables)
    counts[table] = toCount((await queryRows(db, sql.raw(`select count(*) as n from "${table}"`)))[0]!.n);
  return counts;
}

/** A logger that keeps its lines, to hold the upgrade to one line. */
function linesLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    lines.push({ level, message, fields });
  const log: Logger = { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
  return { log, lines };
}

/** The store the current release writes: PGlite on disk, migrated, written through the named functions. */
async function writePgliteDataDir(dataDir: string): Promise<void> {
  const pglite = await openPgliteStore(join(dataDir, "pg"));
  try {
    await seedReportStore(pglite.db);
    // a few hundred more calls over later days, priced (or left unpriced: no price for one model)
    const more = Array.from({ length: 300 }, (_, i) => generatedCall(120 + i));
    await priceCallsById(pglite.db, await recordCalls(pglite.db, more));
    const target = { scope: "org_1", route: "POST /operator/v1/prices", key: "k1" };
    const times = { retentionSeconds: 86_400, abandonedAfterSeconds: 60 };
    await claimIdempotencyKey(pglite.db, target, { requestHash: "h", owner: "o1" }, times);
    await completeIdempotencyKey(pglite.db, target, "o1", { status: 201, response: '{"id":"p"}' });
    await claimIdempotencyKey(pglite.db, { ...target, key: "k2" }, { requestHash: "h", owner: "o2" }, times);
  } finally {
    await pglite.close();
  }
}

async function onStore<T>(open: Promise<DbHandle>, work: (handle: DbHandle) => Promise<T>): Promise<T> {
  const handle = await open;
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

const reportsAndCounts = async (handle: DbHandle) => ({
  reports: JSON.stringify(await allReports(handle), null, 2),
  counts: await rowCounts(handle.db),
});

describe("the upgrade from a PGlite data dir", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-pglite-import-"));
  const sqliteFile = join(dataDir, "gateway.sqlite");
  let before: { reports: string; counts: Record<string, number> };

  beforeAll(async () => {
    await writePgliteDataDir(dataDir);
    before = await onStore(openPgliteStore(join(dataDir, "pg")), reportsAndCounts);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("imports every row, and every report answers the same JSON on SQLite as on PGlite", async () => {
    const { log, lines } = linesLogger();
    const result = await upgradeFromPglite({ dataDir, sqliteFile, log, pageSize: 64 });

    expect(result.imported).toBe(true);
    const after = await onStore(openDb({ kind: "sqlite", file: sqliteFile }), reportsAndCounts);
    expect(after.reports).toBe(before.reports);
    expect(after.counts).toEqual(before.counts);
    expect(before.counts.calls).toBe(420);
    expect(before.counts.idempotency_keys).toBe(2);
    // one line: rows per table and seconds; the old dir kept aside, no temporary file left
    expect(lines).toEqual([
      {
        level: "info",
        message: "imported the PGlite data dir into SQLite",
        fields: expect.objectContaining({ rows: before.counts, seconds: expect.any(Number) }),
      },
    ]);
    expect(existsSync(join(dataDir, "pg"))).toBe(false);
    expect(readdirSync(dataDir).filter((f) => f.startsWith("pg.imported-"))).toHaveLength(1);
    expect(readdirSync(dataDir).some((f) => f.includes(".importing"))).toBe(false);
  });

  it("does not import again at the next start", async () => {
    const modified = statSync(sqliteFile).mtimeMs;
    const { log, lines } = linesLogger();
    expect(await upgradeFromPglite({ dataDir, sqliteFile, log })).toEqual({ imported: false });
    expect(lines).toEqual([]);
    expect(statSync(sqliteFile).mtimeMs).toBe(modified);
  });
});

describe("an upgrade that fails", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-pglite-import-"));
  const sqliteFile = join(dataDir, "gateway.sqlite");
  const pgliteDir = join(dataDir, "pg");
  const onPglite = (statement: string) =>
    onStore(openPgliteStore(pgliteDir), ({ db }) => queryRows(db, sql.raw(statement)));

  beforeAll(() => writePgliteDataDir(dataDir));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** Runs the upgrade expecting it to fail: one error line naming `reason`, nothing changed. */
  async function expectRefused(reason: RegExp) {
    const { log, lines } = linesLogger();
    await expect(upgradeFromPglite({ dataDir, sqliteFile, log })).rejects.toThrow(reason);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe("error");
    expect(lines[0]!.message).toMatch(reason);
    expect(readdirSync(dataDir).sort()).toEqual(["pg"]);
  }

  it("refuses a value that would not convert exactly, leaves the PGlite dir, and the next start tries again", async () => {
    await onPglite(`update prices set output_usd_per_mtok = 15.0000001 where id = 'price_b'`);
    await expectRefused(/prices\.output_usd_per_mtok of row \(price_b\): a price has at most 6 decimals/);

    // a price keeps its text, shortened only past the 12 places SQLite's pricing reads
    await onPglite(`update prices set output_usd_per_mtok = 15.000000000 where id = 'price_b'`);
    await onPglite(`update prices set input_usd_per_mtok = 2.50000000000000 where id = 'price_b'`);
    await onPglite(`update calls set output_usd = 0.0000000000001 where request_id = 'req_0001'`);
    await expectRefused(
      /calls\.output_usd of row \(req_0001, 2026-[\d-]+T[\d:.]+Z\): 0\.0000000000001 is finer than/,
    );

    // fixed, the next start imports; trailing zeros convert, being the same number
    await onPglite(`update calls set output_usd = 0.000001000000000000 where request_id = 'req_0001'`);
    const { log } = linesLogger();
    const result = await upgradeFromPglite({ dataDir, sqliteFile, log });
    expect(result.imported).toBe(true);
    const price = await onStore(openDb({ kind: "sqlite", file: sqliteFile }), ({ db }) =>
      queryRows(
        db,
        sql`select input_usd_per_mtok as i, output_usd_per_mtok as o from prices where id = 'price_b'`,
      ),
    );
    expect(price).toEqual([{ i: "2.5", o: "15.000000000" }]);
  });
});
