import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallEvent, callsTopic, silentLogger } from "@gateway/contracts";
import { kafkaEnv } from "@gateway/engines";
import { openKafkaBus } from "@gateway/engines/kafka";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { deploymentBlobs, type SplitDeployment, startSplitDeployment } from "./deployments.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const dayMs = 86_400_000;

/** `YYYYMMDD` of the UTC day `daysBack` days before now: the suffix of that day's partitions. */
const daySuffix = (daysBack: number) =>
  new Date(Date.now() - daysBack * dayMs).toISOString().slice(0, 10).replaceAll("-", "");

// One split deployment of its own, its retention jobs running every second, so that a retention
// set through the operator API is applied within the test.
describe.skipIf(!engines)("end to end: retention on the split deployment (GATEWAY_TEST_ENGINES=1)", () => {
  let d: SplitDeployment;
  beforeAll(async () => {
    d = await startSplitDeployment({ env: { GATEWAY_RETENTION_EVERY_MS: "1000" } });
  }, 240_000);
  afterAll(() => d?.close(), 120_000);

  /** Call events of the org, captured, as the gateway publishes them, `daysBack` days ago. */
  async function publishCalls(org: TestOrg, workloadId: string, daysBack: number, count: number) {
    const receivedAt = new Date(Date.now() - daysBack * dayMs).toISOString();
    const events: CallEvent[] = Array.from({ length: count }, () =>
      testCallEvent({
        org_id: org.orgId,
        project_id: org.projectId,
        workload_id: workloadId,
        received_at: receivedAt,
        usage: plainUsage(1_000, 500),
        capture: {
          request_headers: { "content-type": "application/json" },
          response_headers: {},
          request_body: { encoding: "utf8", data: `{"model":"gpt-5.4-mini","day":${daysBack}}` },
          response_body: { encoding: "utf8", data: '{"id":"chatcmpl-1"}' },
        },
      }),
    );
    const spool = await mkdtemp(join(tmpdir(), "gw-retention-seed-"));
    const bus = await openKafkaBus(
      z.object(kafkaEnv).parse({ ...d.env, GATEWAY_SPOOL_DIR: spool }),
      silentLogger,
      "e2e-retention-seed",
    );
    for (const event of events) bus.publish(callsTopic, event.request_id, event);
    await bus.flush();
    await bus.close();
    await rm(spool, { recursive: true, force: true });
    return events.map((e) => e.request_id);
  }

  const partitions = async () =>
    (
      await d.sql<{ name: string }[]>`
        select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent in ('calls'::regclass, 'capture_index'::regclass)`
    ).map((r) => r.name);

  it("a retention of one day drops the day before: partition gone, captures 404, usage summary still right from the rollups", async () => {
    const org = await createTestOrg(d);
    const project = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;
    const workloads = await d.cp("GET", `${project}/workloads`, undefined, org.apiKey);
    const workloadId: string = workloads.json.workloads[0].id;
    const old = await publishCalls(org, workloadId, 2, 5);
    const recent = await publishCalls(org, workloadId, 0, 3);

    // every call stored and costed, every capture indexed
    await within(60_000, async () => {
      const [row] = await d.sql<{ calls: number; pending: number; captures: number }[]>`
        select (select count(*)::int from calls where org_id = ${org.orgId}) as calls,
               (select count(*)::int from calls where org_id = ${org.orgId} and unpriced_reason = 'pricing_pending') as pending,
               (select count(*)::int from capture_index where org_id = ${org.orgId}) as captures`;
      return row!.calls === 8 && row!.pending === 0 && row!.captures === 8 ? true : undefined;
    });
    const summaryPath = `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}/usage-summary?window=7d&group_by=day`;
    const before = await d.cp("GET", summaryPath, undefined, org.apiKey);
    expect(before.status).toBe(200);
    expect(before.json.groups.map((g: { requests: number }) => g.requests)).toEqual([5, 3]);
    const oldDays = [`calls_p${daySuffix(2)}`, `capture_index_p${daySuffix(2)}`];
    expect(await partitions()).toEqual(expect.arrayContaining(oldDays));
    expect((await d.cp("GET", `${project}/captures/${old[0]}`, undefined, org.apiKey)).status).toBe(200);
    const blobs = await deploymentBlobs(d.env);
    const oldKeys = (
      await d.sql<{ key: string }[]>`select key from capture_index where request_id = any(${old})`
    ).map((r) => r.key);
    expect(oldKeys).toHaveLength(5);

    const set = await d.cp("PUT", `/operator/v1/orgs/${org.orgId}/retention`, {
      calls_days: 1,
      captures_days: 1,
    });
    expect(set).toEqual({ status: 200, json: { calls_days: 1, captures_days: 1, rollups_days: 400 } });

    // the jobs run every second: the day before yesterday goes, its partitions with it (no other
    // org of this deployment has rows that day)
    await within(30_000, async () => {
      const left = await partitions();
      return oldDays.some((name) => left.includes(name)) ? undefined : true;
    });
    const [rows] = await d.sql<{ calls: number; captures: number }[]>`
      select (select count(*)::int from calls where org_id = ${org.orgId}) as calls,
             (select count(*)::int from capture_index where org_id = ${org.orgId}) as captures`;
    expect(rows).toEqual({ calls: 3, captures: 3 });

    // a capture past retention answers exactly like one never taken
    const never = await d.cp(
      "GET",
      `${project}/captures/req_01JNEVERTAKEN0000000000000`,
      undefined,
      org.apiKey,
    );
    expect(never.status).toBe(404);
    for (const id of old)
      expect(await d.cp("GET", `${project}/captures/${id}`, undefined, org.apiKey)).toEqual(never);
    expect((await d.cp("GET", `${project}/captures/${recent[0]}`, undefined, org.apiKey)).status).toBe(200);
    const list = await d.cp("GET", `${project}/captures?limit=50`, undefined, org.apiKey);
    expect(list.json.captures.map((c: { request_id: string }) => c.request_id).sort()).toEqual(
      [...recent].sort(),
    );
    // and its object is gone from the bucket
    for (const key of oldKeys) expect(await blobs.get(key)).toBeUndefined();
    blobs.close();

    // the usage summary answers for its whole window from the rollups, the pruned day included
    const after = await d.cp("GET", summaryPath, undefined, org.apiKey);
    expect(after.status).toBe(200);
    expect(after.json.groups).toEqual(before.json.groups);
  }, 180_000);
});
