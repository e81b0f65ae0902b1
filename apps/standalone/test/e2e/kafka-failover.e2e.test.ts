import { callsTopic } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SplitDeployment, startSplitDeployment } from "./deployments.ts";
import { type FailoverEngines, failoverEngines } from "./kafka-failover-engines.ts";
import { leaderOfMost, leadersOf, watchFailover } from "./kafka-failover-watch.ts";
import { infra } from "./processes.ts";
import { recordedRows } from "./recorded.ts";
import { createTestOrg } from "./scenarios.ts";
import { sleep, steadyTraffic, within } from "./traffic.ts";

const secure = process.env.GATEWAY_TEST_SECURE_ENGINES === "1";
if (!secure) {
  console.log(
    "kafka failover e2e skipped: set GATEWAY_TEST_SECURE_ENGINES=1 with the shared PostgreSQL and S3 running " +
      "(it starts its own 3-node Kafka with infra/secure/kafka.sh on ports 631xx; .ci/run does this)",
  );
}

/**
 * How long the traffic goes on after the kill: past the cluster's fencing of the dead node
 * (9 s), a new leader, and the send timeouts (5 s) and spool retries of the gateways that
 * follow it. Shorter when iterating.
 */
const afterKillS = Number(process.env.GATEWAY_TEST_KAFKA_FAILOVER_S ?? 25);

// The split deployment on a 3-broker KRaft cluster over SASL_SSL (calls topic: replication 3,
// min.insync.replicas 2): the broker that leads most of the calls topic's partitions is
// SIGKILLed under steady traffic on both gateways, then started again.
describe.skipIf(!secure)(
  "end to end: a Kafka partition leader SIGKILLed (GATEWAY_TEST_SECURE_ENGINES=1)",
  () => {
    let d: SplitDeployment<FailoverEngines>;
    beforeAll(async () => {
      d = await startSplitDeployment({ engines: failoverEngines });
    }, 300_000);
    afterAll(() => d?.close(), 120_000);

    it("answers every call, lists every capture once, records and prices every call once", async () => {
      const org = await createTestOrg(d);
      const kafka = (command: string, ...args: string[]) =>
        infra("secure/kafka", command, d.engines.kafkaEnv, args);
      const topic = `${d.env.GATEWAY_KAFKA_NAME_PREFIX ?? ""}${callsTopic}`;
      // JSON calls and streams, alternating between the two gateways
      const traffic = steadyTraffic(d.gateways, org.apiKey, 50, { streams: true });
      await sleep(5_000);
      const leaders = leadersOf(await kafka("leaders", topic));
      const victim = leaderOfMost(leaders);
      await kafka("kill", String(victim));
      const killedAt = Date.now();
      const watch = watchFailover({
        topic,
        victim,
        killedAt,
        kafkaEnv: d.engines.kafkaEnv,
        gateways: d.gateways,
      });
      await sleep(afterKillS * 1_000);
      const { electedS, producersS } = await watch.stop();
      const restartedAt = Date.now();
      await kafka("start-node", String(victim));
      await sleep(3_000);
      const { ok, errors } = await traffic.stop();

      const { calls, captures } = await recordedRows(d, ok, 120_000);
      const costed = await within(
        60_000,
        async () => {
          const n = await costedCalls(d, ok);
          return n >= ok.length ? n : undefined;
        },
        500,
      ).catch(() => costedCalls(d, ok));
      const listed = await listedCaptures(d, org);
      const once = ok.filter((id) => listed.get(id) === 1).length;
      const unreadable = await unreadableCaptures(d, org, ok);
      const counted = await usageRequests(d, org);
      const late = await lateEvents(d, ok, killedAt, restartedAt);
      const s = (v: number | string | null | undefined) =>
        v == null ? "never" : `${Number(v).toFixed(1)} s`;
      console.log(
        `kafka leader (node ${victim} of 3, leading ${leaders.filter((l) => l === victim).length}/${leaders.length} partitions) SIGKILLed under traffic: ` +
          `${ok.length}/${ok.length + errors.length} calls answered; ${once}/${ok.length} captures listed once; ` +
          `${calls.distinct}/${ok.length} calls recorded once (${calls.n} rows), ${costed} costed, usage counts ${counted}; ` +
          `after the kill: new leaders listed within ${s(electedS)}, producers on them by ${s(producersS)}, ` +
          `consumers back by ${s(late.captureBack)} (capture writer) and ${s(late.costingBack)} (costing worker), ` +
          `caught up by ${s(late.captureDone)} and ${s(late.costingDone)}; longest an event waited: ${s(late.longest)}` +
          (errors.length > 0 ? `; first errors: ${errors.slice(0, 3).join(" | ")}` : ""),
      );
      if (calls.n < ok.length || captures.n < ok.length || once < ok.length) d.dumpLogs();
      expect(errors).toEqual([]);
      expect(ok.length).toBeGreaterThan(afterKillS * 10);
      expect(electedS).not.toBeNull();
      expect(once).toBe(ok.length);
      expect(listed.size).toBe(ok.length);
      expect(unreadable).toEqual([]);
      expect(captures).toEqual({ n: ok.length, distinct: ok.length });
      expect(calls).toEqual({ n: ok.length, distinct: ok.length });
      expect(counted).toBe(ok.length);
      expect(costed).toBe(ok.length);
    }, 420_000);
  },
);

/**
 * The calls of `ids` the costing worker is done with: priced, or a stream sent without
 * `stream_options.include_usage` (the traffic's streams), which has no usage to price.
 */
async function costedCalls(d: SplitDeployment<FailoverEngines>, ids: string[]): Promise<number> {
  const [row] = await d.sql<{ n: number }[]>`
    select count(*)::int as n from calls where request_id = any(${ids})
      and (pricing_status = 'priced' or unpriced_reason = 'stream_without_usage')`;
  return row!.n;
}

/**
 * For each consumer, in seconds after the kill: when it wrote the first and the last of the
 * events the failover held back (more than 3 s between the call and the consumer's write: a
 * capture uploaded, a call priced), that is when it was back on the cluster and when it had
 * caught up; among the calls made from 2 s before the kill (their events may not have been
 * sent yet) until the killed node was started again (its restart, recovering its log, loads the
 * two cores: later calls wait on that, not on the failover).
 * And the longest any event waited. Null: no event waited that long.
 */
async function lateEvents(
  d: SplitDeployment<FailoverEngines>,
  ids: string[],
  killedAt: number,
  restartedAt: number,
) {
  type Seconds = number | string | null;
  const k = killedAt / 1000;
  const [row] = await d.sql<
    Record<"captureBack" | "captureDone" | "costingBack" | "costingDone" | "longest", Seconds>[]
  >`
    with w as (
      select c.received_at between ${new Date(killedAt - 2_000)} and ${new Date(restartedAt)} as early,
        extract(epoch from i.uploaded_at) - ${k}::float8 as capture_at,
        extract(epoch from i.uploaded_at - c.received_at) as capture_wait,
        extract(epoch from c.priced_at) - ${k}::float8 as costing_at,
        extract(epoch from c.priced_at - c.received_at) as costing_wait
      from calls c join capture_index i using (request_id) where c.request_id = any(${ids}))
    select
      min(capture_at) filter (where early and capture_wait > 3) as "captureBack",
      max(capture_at) filter (where early and capture_wait > 3) as "captureDone",
      min(costing_at) filter (where early and costing_wait > 3) as "costingBack",
      max(costing_at) filter (where early and costing_wait > 3) as "costingDone",
      greatest(max(capture_wait), max(costing_wait)) as longest
    from w`;
  return row!;
}

type Org = Awaited<ReturnType<typeof createTestOrg>>;
const projectPath = (org: Org) => `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}`;

/** Every capture the control plane lists for the project, with how many times it was listed. */
async function listedCaptures(d: SplitDeployment<FailoverEngines>, org: Org): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await d.cp("GET", `${projectPath(org)}/captures?${query}`, undefined, org.apiKey);
    expect(page.status).toBe(200);
    for (const { request_id: id } of page.json.captures as { request_id: string }[])
      times.set(id, (times.get(id) ?? 0) + 1);
    cursor = page.json.cursor;
  } while (cursor);
  return times;
}

/** The calls of `ids` whose capture envelope the control plane does not serve whole. */
async function unreadableCaptures(d: SplitDeployment<FailoverEngines>, org: Org, ids: string[]) {
  const unreadable: string[] = [];
  for (const id of ids) {
    const res = await d.cp("GET", `${projectPath(org)}/captures/${id}`, undefined, org.apiKey);
    if (res.status !== 200 || res.json.request_id !== id) unreadable.push(`${id}: ${res.status}`);
  }
  return unreadable;
}

/** The project's requests in the usage summary (its rollups count each call once, however often delivered). */
async function usageRequests(d: SplitDeployment<FailoverEngines>, org: Org): Promise<number> {
  const path = `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}/usage-summary?window=1h&group_by=workload`;
  const res = await d.cp("GET", path, undefined, org.apiKey);
  return (res.json.groups as { requests: number }[]).reduce((sum, g) => sum + g.requests, 0);
}
