import type { CallEvent } from "@gateway/contracts";
import { callRow } from "@gateway/costing-worker";
import { callLogScanBudget, indexCaptures, priceCallsById, recordCalls, repriceCallsFor } from "@gateway/db";
import { testStores } from "@gateway/db/testing";
import { type Json, plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

const model = "call-log-model";
const base = Date.parse("2026-05-01T10:00:00.000Z");
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();

/**
 * The call log and one call through real HTTP on each store: newest first, keyset pages that
 * neither skip nor repeat a call, every filter, cursors bound to their filters, and a call's cost
 * traced to the price row that priced it and the one it had before a re-pricing.
 */
describe.each(testStores())("the call log on %s", (store) => {
  let h: ControlPlaneHarness;
  let events: CallEvent[];
  const path = () => `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/calls`;
  const list = async (query: string) => (await h.cp("GET", `${path()}?${query}`)).json as Json;

  beforeAll(async () => {
    h = await startControlPlane({ store });
    const mine = { org_id: h.orgId, project_id: h.projectId };
    events = [
      ...Array.from({ length: 7 }, (_, i) =>
        testCallEvent({ ...mine, received_at: at(i), usage: plainUsage(1_000, 100), served_model: model }),
      ),
      // two calls of the same instant: the request id breaks the tie
      testCallEvent({ ...mine, received_at: at(10), status: 502, stream_outcome: "upstream_error" }),
      testCallEvent({ ...mine, received_at: at(10), status: 429, workload_id: "usp_other" }),
      testCallEvent({
        ...mine,
        received_at: at(11),
        stream: true,
        stream_outcome: "truncated",
        route: "fallback",
        mode: "managed",
        requested_model: "asked-for",
      }),
      // another project's call is never listed
      testCallEvent({ org_id: h.orgId, project_id: "proj_elsewhere", received_at: at(12) }),
    ];
    await recordCalls(h.db, events.map(callRow));
    await priceCallsById(
      h.db,
      events.map((e) => e.request_id),
    );
    await indexCaptures(h.db, [
      {
        requestId: events[0]!.request_id,
        orgId: h.orgId,
        projectId: h.projectId,
        workloadId: "usp_1",
        apiKeyId: "api_key_1",
        key: "captures/x.jsonl",
        size: 1,
        receivedAt: new Date(events[0]!.received_at),
        uploadedAt: new Date(),
      },
    ]);
  });
  afterAll(() => h.close());

  const newestFirst = () =>
    events
      .filter((e) => e.project_id === h.projectId)
      .sort((a, b) => b.received_at.localeCompare(a.received_at) || b.request_id.localeCompare(a.request_id))
      .map((e) => e.request_id);

  it("pages newest first with a cursor, no call skipped or repeated", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Json = await list(`limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.calls.map((c: Json) => c.request_id));
      cursor = page.cursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(newestFirst());
    expect(pages).toBe(4);
  });

  it("lists a call's metadata without bodies, and whether a capture exists", async () => {
    const { calls } = await list("limit=100");
    const first = calls.find((c: Json) => c.request_id === events[0]!.request_id);
    expect(first).toMatchObject({
      received_at: at(0),
      workload_id: "usp_1",
      served_model: model,
      status: 200,
      input_tokens: 1_000,
      output_tokens: 100,
      pricing_status: "unpriced",
      customer_cost_usd: null,
      captured: true,
    });
    expect(calls.filter((c: Json) => c.captured)).toHaveLength(1);
    expect(Object.keys(first)).not.toContain("tags");
  });

  it("filters by time, workload, model, mode, route, status, stream outcome and request id", async () => {
    const ids = async (query: string) => (await list(query)).calls.map((c: Json) => c.request_id);
    const [a, , , , , , g, err502, refused, truncated] = events.map((e) => e.request_id);
    expect(await ids(`from=${at(6)}&to=${at(11)}`)).toEqual(
      newestFirst().filter((id) => [g, err502, refused].includes(id)),
    );
    expect(await ids("workload_id=usp_other")).toEqual([refused]);
    expect(await ids("model=asked-for")).toEqual([truncated]);
    expect((await ids(`model=${model}`)).length).toBe(7);
    expect(await ids("mode=managed")).toEqual([truncated]);
    expect(await ids("route=fallback")).toEqual([truncated]);
    expect(await ids("status=502")).toEqual([err502]);
    expect(await ids("status=4xx")).toEqual([refused]);
    expect(new Set(await ids("status=error"))).toEqual(new Set([err502, refused, truncated]));
    expect(await ids("stream_outcome=truncated")).toEqual([truncated]);
    expect(await ids(`request_id=${a}`)).toEqual([a]);
  });

  it("examines at most the scan budget of calls for a filter no index serves, and goes on from there", async () => {
    const project = (await h.cp("POST", `/admin/v1/orgs/${h.orgId}/projects`, { slug: "scan", name: "S" }))
      .json;
    const of = { org_id: h.orgId, project_id: project.id };
    // the two oldest calls are the only 503s, behind the scan budget's worth of newer ones
    const scanned = Array.from({ length: callLogScanBudget + 2 }, (_, i) =>
      testCallEvent({ ...of, received_at: at(100 + i), status: i < 2 ? 503 : 200 }),
    );
    await recordCalls(h.db, scanned.map(callRow));
    const log = `/admin/v1/orgs/${h.orgId}/projects/${project.id}/calls`;
    const first = (await h.cp("GET", `${log}?status=503`)).json;
    expect(first.calls).toEqual([]);
    // the budget's last call: the newest but `budget`, the third oldest
    expect(first.scanned_through).toBe(scanned[2]!.received_at);
    const second = (await h.cp("GET", `${log}?status=503&cursor=${first.cursor}`)).json;
    expect(second.calls.map((c: Json) => c.request_id)).toEqual([
      scanned[1]!.request_id,
      scanned[0]!.request_id,
    ]);
    expect([second.cursor, second.scanned_through]).toEqual([null, null]);
    // an unfiltered page, or one an index serves, is never cut short
    const plain = (await h.cp("GET", `${log}?limit=1`)).json;
    expect([plain.calls.length, plain.scanned_through]).toEqual([1, null]);
    const oldest = (await h.cp("GET", `${log}?request_id=${scanned[0]!.request_id}`)).json;
    expect(oldest.calls.map((c: Json) => c.status)).toEqual([503]);
  });

  it("refuses a bad filter, and a cursor of other filters", async () => {
    expect((await h.cp("GET", `${path()}?status=6xx`)).status).toBe(400);
    expect((await h.cp("GET", `${path()}?from=2026-05-01T10:00:00+02:00`)).status).toBe(400);
    const { cursor } = await list("limit=1&route=primary");
    expect((await h.cp("GET", `${path()}?limit=1&route=fallback&cursor=${cursor}`)).status).toBe(400);
  });

  /** A price row for `model` from `from`, and the re-pricing its job would run. */
  async function addPrice(from: string, input: string, output: string) {
    const rates = {
      cache_write_5m_usd_per_mtok: "1",
      cache_write_1h_usd_per_mtok: "1",
      cache_read_usd_per_mtok: "0.1",
    };
    const added = await h.op("POST", "/operator/v1/prices", {
      model,
      effective_from: from,
      input_usd_per_mtok: input,
      output_usd_per_mtok: output,
      ...rates,
    });
    await repriceCallsFor(h.db, model);
    return added;
  }

  it("traces a call's cost to its price row and to the row it had before a re-pricing", async () => {
    const id = events[0]!.request_id;
    const one = async () => (await h.cp("GET", `${path()}/${id}`)).json as Json;
    expect((await one()).cost).toMatchObject({
      pricing_status: "unpriced",
      unpriced_reason: "no_price",
      price: null,
    });

    const first = await addPrice("2026-01-01T00:00:00Z", "3", "15");
    const priced = await one();
    expect(priced.cost).toMatchObject({
      pricing_status: "priced",
      customer_cost_usd: 0.0045,
      price: { id: first.json.id, effective_from: "2026-01-01T00:00:00.000Z", effective_until: null },
      lines: {
        uncached_input: { tokens: 1_000, usd_per_mtok: "3", usd: 0.003 },
        output: { tokens: 100, usd_per_mtok: "15", usd: 0.0015 },
        cache_write: { tokens_5m: 0, tokens_1h: 0, usd: 0 },
      },
      // from no price to a price is a re-pricing too
      repriced: { from_price_id: null },
    });
    expect(priced.cost.priced_at).toEqual(expect.any(String));

    const second = await addPrice("2026-04-01T00:00:00Z", "1", "5");
    const repriced = await one();
    expect(repriced.cost).toMatchObject({
      customer_cost_usd: 0.0015,
      price: { id: second.json.id },
      repriced: { from_price_id: first.json.id },
    });
    // the log shows the same cost
    const { calls } = await list(`request_id=${id}`);
    expect(calls[0].customer_cost_usd).toBe(0.0015);
  });

  it("answers 404 for a call of another project", async () => {
    const elsewhere = events.at(-1)!.request_id;
    expect((await h.cp("GET", `${path()}/${elsewhere}`)).status).toBe(404);
    expect((await h.cp("GET", `${path()}/req_none`)).status).toBe(404);
  });
});
