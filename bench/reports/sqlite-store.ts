import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb, queryRows, runMigrations } from "@gateway/db";
import { sql } from "drizzle-orm";
import { type BenchStore, type FillPlan, filledColumns } from "./bench-store.ts";

/** Money on SQLite is integer pico-dollars: the PostgreSQL fill's per-token prices, times 10^12. */
const pico = { input: 3_000_000, cacheWrite: 3_750_000, cacheRead: 300_000, output: 15_000_000 };

/** The embedded default's store, as `pnpm start` opens it, in a temp dir removed at the end. */
export async function openSqliteBench({ total, since, projectId }: FillPlan): Promise<BenchStore> {
  const dir = mkdtempSync(join(tmpdir(), "bench-reports-"));
  const handle = await openDb({ kind: "sqlite", file: join(dir, "gateway.db") });
  await runMigrations(handle);
  const { db } = handle;
  const sinceMs = since.getTime();
  return {
    name: "sqlite",
    db,
    async fill(from, to) {
      // node:sqlite has no generate_series: a recursive CTE counts from..to inside the one statement
      // (cast: node:sqlite binds a JS number as a REAL, and 'usp_w' || 1.0 is 'usp_w1.0').
      await queryRows(
        db,
        sql`
        with recursive s(g) as (select cast(${from} as integer) union all select g + 1 from s where g < ${to})
        insert into calls (${filledColumns})
        select printf('req_%012d', g), 'org_bench', ${projectId}, 'usp_w' || (g % 8), 'api_key_bench',
          ${sinceMs} + cast(g * 2592000000.0 / ${total} as integer),
          case when g % 2 = 0 then 'messages' else 'chat_completions' end,
          case when g % 2 = 0 then 'provider_a' else 'provider_b' end, 'byo',
          case when g % 50 = 0 then 'fallback' when g % 20 = 0 then 'gateway' else 'primary' end,
          'model-' || (g % 6), 'model-' || (g % 6), g % 3 = 0,
          case when g % 33 = 0 then 502 else 200 end, ((g * 7919) % 99800) / 10.0 + 20,
          (((g * 7919) % 99800) / 10.0 + 20) / 4, 'complete', '{}',
          g % 900, g % 4000, g % 300, g % 300, 0, g % 700,
          case when g % 20 = 7 then 'unpriced' else 'priced' end,
          case when g % 20 = 7 then 'no_price' end,
          case when g % 20 = 7 then null else 'price_bench' end,
          (g % 900) * ${pico.input}, (g % 300) * ${pico.cacheWrite}, (g % 4000) * ${pico.cacheRead},
          (g % 700) * ${pico.output},
          case when g % 20 = 7 then null
            else (g % 900) * ${pico.input} + (g % 300) * ${pico.cacheWrite} + (g % 4000) * ${pico.cacheRead}
              + (g % 700) * ${pico.output} end
        from s`,
      );
    },
    // The product runs no ANALYZE: the planner works without statistics, as for a user.
    async settle() {
      await queryRows(db, sql`pragma wal_checkpoint(truncate)`);
    },
    async sizeBytes() {
      return readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    },
    async dispose() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
