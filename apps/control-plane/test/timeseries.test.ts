import type { CallEvent } from "@gateway/contracts";
import { callRow } from "@gateway/costing-worker";
import { priceCallsById, recordCalls } from "@gateway/db";
import { testStores } from "@gateway/db/testing";
import { type Json, plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

const now = Date.parse("2026-05-08T10:17:30.500Z");
const hourMs = 3_600_000;
const steps = { hour: 60_000, day: hourMs, week: 6 * hourMs, "30d": 24 * hourMs } as const;
const lengths = { hour: hourMs, day: 24 * hourMs, week: 7 * 24 * hourMs, "30d": 30 * 24 * hourMs } as const;

/** A latency rounded down to the E12 series, as the record states them, computed here by hand. */
function truncated(ms: number): number {
  const v = Math.floor(ms);
  if (v < 10) return v;
  const unit = 10 ** (String(v).length - 2);
  const lead = Math.floor(v / unit);
  return [82, 68, 56, 47, 39, 33, 27, 22, 18, 15, 12, 10].find((m) => m <= lead)! * unit;
}

function nearestRank(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1]!;
}

/** What each slice should say, from the events themselves: a scan of every call. */
function expectedSeries(events: CallEvent[], window: keyof typeof steps, keep: (e: CallEvent) => boolean) {
  const step = steps[window];
  const start = now - lengths[window];
  const inWindow = events.filter((e) => {
    const t = Date.parse(e.received_at);
    return keep(e) && t >= start && t <= now;
  });
  const series = [];
  for (let t = Math.floor(start / step) * step; t <= now; t += step) {
    const slice = inWindow.filter((e) => Math.floor(Date.parse(e.received_at) / step) * step === t);
    const total = slice.map((e) => truncated(e.total_ms));
    const firstByte = slice.flatMap((e) => (e.first_byte_ms === null ? [] : [truncated(e.first_byte_ms)]));
    series.push({
      start: new Date(t).toISOString(),
      calls: slice.length,
      errors: slice.filter((e) => e.status >= 400 || e.stream_outcome === "upstream_error").length,
      // each priced call costs 1,000 input tokens at $3 per million: $0.003, summed exactly
      spend_usd: Number(`${slice.filter((e) => e.usage).length * 3}e-3`),
      p50_total_ms: nearestRank(total, 0.5),
      p95_total_ms: nearestRank(total, 0.95),
      p50_first_byte_ms: nearestRank(firstByte, 0.5),
      p95_first_byte_ms: nearestRank(firstByte, 0.95),
    });
  }
  return series;
}

/**
 * The overview's time series through real HTTP on each store, against a scan of every call done
 * here: whole hours read from the rollups and histograms, edge hours and minute slices from the
 * calls, must all agree with it, overall and per group, in every window.
 */
describe.each(testStores())("the time series on %s", (store) => {
  let h: ControlPlaneHarness;
  const events: CallEvent[] = [];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ["Date"], now });
    h = await startControlPlane({ store });
    const mine = { org_id: h.orgId, project_id: h.projectId };
    // 600 calls over 35 days, denser in the last hour; latencies from 3 ms to 42 s
    for (let i = 0; i < 600; i++) {
      const ago = i < 200 ? (i * 17_903) % hourMs : ((i * 7_919_333) % (35 * 24 * hourMs)) + 1;
      const total = [3, 57.9, 99.99, 123.4, 1_999, 2_000.5, 42_123][i % 7]! + (i % 13);
      events.push(
        testCallEvent({
          ...mine,
          received_at: new Date(now - ago).toISOString(),
          workload_id: i % 3 === 0 ? "usp_a" : "usp_b",
          served_model: i % 5 === 0 ? null : `m-${i % 2}`,
          status: i % 11 === 0 ? 500 : 200,
          stream_outcome: i % 17 === 0 ? "upstream_error" : "complete",
          total_ms: total,
          first_byte_ms: i % 4 === 0 ? null : total / 3,
          usage: i % 5 !== 0 && i % 2 === 1 ? plainUsage(1_000, 0) : null,
        }),
      );
    }
    // exactly on the window's start, and on an hour's edge
    events.push(testCallEvent({ ...mine, received_at: new Date(now - hourMs).toISOString(), total_ms: 5 }));
    events.push(testCallEvent({ ...mine, received_at: new Date(now - 30 * 60_000 - 500).toISOString() }));
    await h.op("POST", "/operator/v1/prices", {
      model: "m-1",
      effective_from: "2026-01-01T00:00:00Z",
      input_usd_per_mtok: "3",
      cache_write_5m_usd_per_mtok: "0",
      cache_write_1h_usd_per_mtok: "0",
      cache_read_usd_per_mtok: "0",
      output_usd_per_mtok: "0",
    });
    await recordCalls(h.db, events.map(callRow));
    await priceCallsById(
      h.db,
      events.map((e) => e.request_id),
    );
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  const ask = async (query: string) =>
    (await h.cp("GET", `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/timeseries?${query}`)).json as Json;

  it.each(Object.keys(steps) as (keyof typeof steps)[])(
    "answers the %s window as a scan of every call",
    async (window) => {
      const record = await ask(`window=${window}`);
      expect(record).toMatchObject({
        window,
        time_zone: "UTC",
        window_end: new Date(now).toISOString(),
        window_start: new Date(now - lengths[window]).toISOString(),
        groups: [],
      });
      expect(record.series).toEqual(expectedSeries(events, window, () => true));
      expect(record.series.reduce((n: number, p: Json) => n + p.calls, 0)).toBeGreaterThan(0);
    },
  );

  it("answers one series per workload and per model", async () => {
    const byWorkload = await ask("window=week&group_by=workload");
    expect(byWorkload.groups.map((g: Json) => [g.workload_id, g.model])).toEqual([
      ["usp_1", null],
      ["usp_a", null],
      ["usp_b", null],
    ]);
    for (const g of byWorkload.groups)
      expect(g.series).toEqual(expectedSeries(events, "week", (e) => e.workload_id === g.workload_id));
    const byModel = await ask("window=day&group_by=model");
    expect(byModel.groups.map((g: Json) => g.model)).toEqual([null, "gpt-5.4-mini", "m-0", "m-1"]);
    for (const g of byModel.groups)
      expect(g.series).toEqual(expectedSeries(events, "day", (e) => e.served_model === g.model));
  });

  it("refuses an unknown window or grouping", async () => {
    const path = `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/timeseries`;
    expect((await h.cp("GET", `${path}?window=2h`)).status).toBe(400);
    expect((await h.cp("GET", `${path}?group_by=day`)).status).toBe(400);
  });
});
