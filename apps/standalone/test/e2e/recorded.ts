import { expect } from "vitest";
import type { Deployment, SplitDeployment } from "./deployments.ts";
import type { EngineSet } from "./engine-sets.ts";
import type { TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

/** A call a client made, with the usage it was shown (prompt tokens include cache reads and writes). */
export interface MadeCall {
  requestId: string;
  prompt: number;
  output: number;
}

/**
 * Every call of `made`, all sent to the workload `workloadId` (and nothing else was), has exactly
 * one capture, recorded as complete, and the workload's usage summary holds exactly the tokens
 * the clients were shown: what a dashboard reading the control plane would see.
 */
export async function expectEveryCallRecorded(
  d: Deployment,
  org: TestOrg,
  workloadId: string,
  made: MadeCall[],
) {
  const project = `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}`;
  const expected = {
    requests: made.length,
    prompt: made.reduce((s, m) => s + m.prompt, 0),
    output: made.reduce((s, m) => s + m.output, 0),
  };
  const summary = await within(
    15_000,
    async () => {
      const res = await d.cp(
        "GET",
        `${project}/usage-summary?window=1h&group_by=workload`,
        undefined,
        org.apiKey,
      );
      const group = res.json.groups.find((g: { workload_id: string }) => g.workload_id === workloadId);
      return group?.requests === made.length ? group : undefined;
    },
    200,
  ).catch(() => ({ requests: "fewer than expected" }));
  expect({
    requests: summary.requests,
    prompt: summary.input_tokens + summary.cache_read_input_tokens + summary.cache_creation_input_tokens,
    output: summary.output_tokens,
  }).toEqual(expected);

  const captures = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;
  const outcomes = new Map<string, string>();
  await within(
    15_000,
    async () => {
      for (const { requestId } of made) {
        if (outcomes.has(requestId)) continue;
        const res = await d.cp("GET", `${captures}/captures/${requestId}`, undefined, org.apiKey);
        if (res.status !== 200) return undefined;
        outcomes.set(requestId, res.json.stream_outcome);
      }
      return true;
    },
    200,
  );
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await d.cp(
      "GET",
      `${captures}/workloads/${workloadId}/captures?${query}`,
      undefined,
      org.apiKey,
    );
    listed.push(...page.json.captures.map((c: { request_id: string }) => c.request_id));
    cursor = page.json.cursor;
  } while (cursor);
  expect(listed.sort()).toEqual(made.map((m) => m.requestId).sort());
  expect([...outcomes.values()].filter((o) => o !== "complete")).toEqual([]);
  return { complete: outcomes.size, withUsage: summary.requests as number, ...expected };
}

/** Rows of `table` among `ids`, and how many distinct request ids they hold. */
async function rows(d: SplitDeployment<EngineSet>, table: "calls" | "capture_index", ids: string[]) {
  const [r] = await d.sql<{ n: number; distinct: number }[]>`
    select count(*)::int as n, count(distinct request_id)::int as distinct
    from ${d.sql(table)} where request_id = any(${ids})`;
  return r!;
}

/**
 * The call rows and capture index rows of `ids` in the split deployment's database, once each id
 * has both or `timeoutMs` has passed: `n` rows, of `distinct` request ids.
 */
export async function recordedRows(d: SplitDeployment<EngineSet>, ids: string[], timeoutMs: number) {
  await within(
    timeoutMs,
    async () => {
      const [calls, captures] = await Promise.all([rows(d, "calls", ids), rows(d, "capture_index", ids)]);
      return calls.n >= ids.length && captures.n >= ids.length ? true : undefined;
    },
    500,
  ).catch(() => {});
  return { calls: await rows(d, "calls", ids), captures: await rows(d, "capture_index", ids) };
}
