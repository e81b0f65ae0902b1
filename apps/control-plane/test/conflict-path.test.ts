import { postgresOf } from "@gateway/db/testing";
import { eventually } from "@gateway/testkit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

/**
 * A write that loses a race for a unique name answers 409 like any other conflict, not 500. The
 * race is made, not hoped for: another session renames workload B to "taken" and holds its
 * transaction open, so the PATCH that renames A finds the name free (B's new name is not
 * committed), then waits on the unique index until B's rename commits, and fails with a unique
 * violation. SQLite runs one transaction at a time, so only PostgreSQL can interleave them.
 */
describe.skipIf(!process.env.GATEWAY_TEST_POSTGRES_URL)(
  "one conflict path (GATEWAY_TEST_POSTGRES_URL)",
  () => {
    let h: ControlPlaneHarness;
    let workloads: string;
    beforeAll(async () => {
      h = await startControlPlane({ store: "postgres" });
      workloads = `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`;
    });
    afterAll(() => h?.close());

    /** Sessions waiting on a lock, asked on a connection of its own (a transaction keeps its first view of it). */
    async function blockedSessions(): Promise<number> {
      // postgres.js answers an array of rows
      const rows = (await postgresOf(h.db).execute(sql`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`)) as unknown as { n: number }[];
      return rows[0]!.n;
    }

    it("a rename that loses the name to a concurrent commit answers 409 in the error model", async () => {
      const a = (await h.cp("POST", workloads, { name: "a" })).json.id as string;
      const b = (await h.cp("POST", workloads, { name: "b" })).json.id as string;

      // wrapped, as the transaction would otherwise wait for the PATCH, which waits for its commit
      const { renamingA } = await postgresOf(h.db).transaction(async (tx) => {
        await tx.execute(sql`update workloads set name = 'taken' where id = ${b}`);
        const renamingA = h.cp("PATCH", `${workloads}/${a}`, { name: "taken" });
        // the PATCH waits on the unique index
        await eventually(async () => (await blockedSessions()) > 0, 5_000);
        return { renamingA };
      });

      const answer = await renamingA;
      expect(answer.status).toBe(409);
      expect(answer.json).toEqual({ error: { code: "conflict", message: expect.any(String) } });
      const names = (await h.cp("GET", workloads)).json.workloads.map((w: { name: string }) => w.name);
      expect(names.sort()).toEqual(["a", "main", "taken"]);
    });
  },
);
