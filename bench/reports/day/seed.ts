import { execFileSync } from "node:child_process";
import {
  createPartitionsAhead,
  type Db,
  insertApiKey,
  insertOrg,
  insertProjectWithDefaultWorkload,
  insertWorkload,
  queryRows,
  rebuildRollups,
  replaceCatalogModel,
  writeLimits,
  writeWorkloadChanges,
} from "@gateway/db";
import { sql } from "drizzle-orm";
import { postgresSeed, sqliteSeed } from "./seed-sql.ts";
import {
  callSegments,
  keyCount,
  keyId,
  labels,
  modelCount,
  now,
  orgId,
  projectId,
  rollupHours,
  workloadCount,
  workloadId,
} from "./shape.ts";

/** Call numbers per statement: about a million rows stored, or ten million scanned for problems. */
const fullChunk = 1_000_000;
const problemChunk = 10_000_000;
/** Seeding stops rather than leave the shared disk below this. */
const minFreeBytes = 10 * 2 ** 30;

const say = (line: string) => process.stdout.write(`  ${line}\n`);

/** True when the store already holds the seeded day (the project is written first, the calls last). */
export async function isSeeded(db: Db): Promise<boolean> {
  const [row] = await queryRows(db, sql`select 1 from spend_daily where scope_id = ${projectId} limit 1`);
  return Boolean(row);
}

/** The catalog's 11 models, the org, its project, 40 workloads (ten routed), 25 keys, their limits. */
async function seedOrg(db: Db): Promise<void> {
  await insertOrg(db, { id: orgId, name: "Bench" });
  await insertProjectWithDefaultWorkload(
    db,
    { id: projectId, orgId, slug: "bench", name: "Bench", isDefault: true },
    { id: workloadId(0), name: "main" },
  );
  for (let w = 1; w < workloadCount; w++)
    await insertWorkload(db, { id: workloadId(w), projectId, name: `workload-${w}`, captureEnabled: true });
  for (let m = 0; m < modelCount; m++)
    await replaceCatalogModel(db, `model-${m}`, {
      displayName: `Model ${m}`,
      active: true,
      deployments: [
        {
          providerLabel: labels[m % 3]!,
          wireFormat: "messages",
          baseUrl: "http://127.0.0.1:9",
          upstreamModel: `upstream-${m}`,
          credentialEnv: "BENCH_KEY",
          priority: 0,
        },
      ],
    });
  for (let w = 0; w < workloadCount; w += 4)
    await writeWorkloadChanges(db, workloadId(w), { routeModelId: `model-${w % 11}`, routeTrafficPct: 50 });
  for (let k = 0; k < keyCount; k++)
    await insertApiKey(db, {
      id: keyId(k),
      orgId,
      name: `key ${k}`,
      keyHash: `hash_${k}`,
      obfuscatedValue: "sk-…",
    });
  const budget = (usd: string, period: "day" | "month") => ({ usd, period, applies_to: "all" as const });
  await writeLimits(
    db,
    { scope: "project", scopeId: projectId, orgId },
    { budget: budget("500000", "month") },
  );
  for (let w = 0; w < workloadCount; w++)
    await writeLimits(
      db,
      { scope: "workload", scopeId: workloadId(w), orgId },
      { requests_per_minute: 20_000, budget: budget("1000", "day") },
    );
  for (let k = 0; k < keyCount; k++)
    await writeLimits(db, { scope: "api_key", scopeId: keyId(k), orgId }, { tokens_per_minute: 5_000_000 });
}

function freeBytes(): number {
  const out = execFileSync("df", ["--output=avail", "-B1", "/tmp"], { encoding: "utf8" });
  return Number(out.trim().split("\n")[1]);
}

/** Seeds the whole day in bulk statements, printing progress; throws if the disk runs low. */
export async function seedDay(db: Db, store: "postgres" | "sqlite"): Promise<void> {
  const seed = store === "sqlite" ? sqliteSeed : postgresSeed;
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
  await seedOrg(db);
  // PostgreSQL's day partitions of `calls`, a week at a time, from the 30-day window's first day
  for (let day = rollupHours.first.getTime(); day <= now.getTime(); day += 7 * 86_400_000)
    await createPartitionsAhead(db, "calls", new Date(day));
  for (const segment of callSegments()) {
    const step = segment.problemsOnly ? problemChunk : fullChunk;
    for (let from = segment.from; from <= segment.to; from += step) {
      if (freeBytes() < minFreeBytes) throw new Error("less than 10 GB free: seeding stopped");
      const to = Math.min(segment.to, from + step - 1);
      await queryRows(db, sql.raw(seed.calls({ ...segment, from, to })));
      say(`calls ${from}..${to}${segment.problemsOnly ? " (problems only)" : ""} (${elapsed()})`);
    }
  }
  // the edge hours' rollups (hourly and per minute) from their calls (the others' go), then the
  // other hours' as 100M a day
  await rebuildRollups(db);
  for (const statement of seed.keepEdgeRollups()) await queryRows(db, sql.raw(statement));
  await queryRows(db, sql.raw(seed.rollups()));
  say(`rollups of 30 days (${elapsed()})`);
  await queryRows(db, sql.raw(seed.minuteRollups()));
  say(`per-minute rollups of 24 hours (${elapsed()})`);
  await spendOfTheMonth(db, store);
  say(`seeded (${elapsed()})`);
}

/** What the budgets count: `spend_daily` for each scope and day of the month to `now`, in both modes. */
async function spendOfTheMonth(db: Db, store: "postgres" | "sqlite"): Promise<void> {
  const scopes = [
    ["project", projectId],
    ...Array.from({ length: workloadCount }, (_, w) => ["workload", workloadId(w)]),
    ...Array.from({ length: keyCount }, (_, k) => ["api_key", keyId(k)]),
  ];
  const days = Array.from(
    { length: now.getUTCDate() },
    (_, d) => `2026-11-${String(d + 1).padStart(2, "0")}`,
  );
  // $30,000 a day for the project, shared by the workloads and the keys: SQLite holds pico-dollars
  const cost = (usd: number) => (store === "sqlite" ? String(Math.round(usd * 1e12)) : String(usd));
  const rows = scopes.flatMap(([scope, id]) =>
    days.flatMap((day) =>
      ["byo", "managed"].map((mode) => {
        const usd = scope === "project" ? 15_000 : scope === "workload" ? 375 : 600;
        return `('${scope}', '${id}', '${day}', '${mode}', ${cost(usd)})`;
      }),
    ),
  );
  await queryRows(
    db,
    sql.raw(
      `insert into spend_daily (scope, scope_id, day, mode, customer_cost_usd) values ${rows.join(", ")}`,
    ),
  );
}
