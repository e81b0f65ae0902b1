import type { EventBus } from "@gateway/bus";
import { createInProcessBus } from "@gateway/bus";
import { type CallEvent, callsTopic, silentLogger } from "@gateway/contracts";
import { startCostingWorker } from "@gateway/costing-worker";
import { testStores } from "@gateway/db/testing";
import type { JobQueue } from "@gateway/jobs";
import type { Json } from "@gateway/testkit";
import { describe, expect, it, vi } from "vitest";
import { generateCalls, workloadEnd, workloadStart } from "./support/differential-calls.ts";
import { addPrices, configure, repricings } from "./support/differential-config.ts";
import {
  callCostQueries,
  callDetailQueries,
  idNamer,
  maskRunClock,
  projectReports,
  queryNows,
  type ReportQuery,
} from "./support/differential-reports.ts";
import { startControlPlane } from "./support/harness.ts";

const callCount = 4_000;
/** The control plane's clock while it is configured and fed: before every report's `now`. */
const configuredAt = new Date("2026-03-03T09:35:00.000Z");

/**
 * One generated workload through the control plane on SQLite and on PostgreSQL: configured over
 * its HTTP API, the calls through the costing worker's consumers on the in-process bus (as the
 * gateway publishes them), prices added after their calls and re-priced by the worker's job; then
 * every report over many windows, groupings and clocks must answer the same bytes on both stores
 * (issue 37, "Same answers from both stores"). Only the ids the control plane mints are named by
 * their creation order, since each store's run mints its own.
 */
describe.skipIf(!testStores().includes("postgres"))(
  "one workload through the control plane on both stores",
  () => {
    it("answers every report with the same JSON on SQLite and on PostgreSQL", {
      timeout: 180_000,
    }, async () => {
      const sqlite = await answersOn("sqlite");
      const postgres = await answersOn("postgres");
      expectEveryCase(sqlite.answers);

      expect(sqlite.answers.size).toBe(postgres.answers.size);
      const differing = [...sqlite.answers].filter(([query, body]) => postgres.answers.get(query) !== body);
      const shown = differing
        .slice(0, 3)
        .map(([query, body]) => ({ query, sqlite: body, postgres: postgres.answers.get(query) }));
      expect(shown, `${differing.length} of ${sqlite.answers.size} answers differ`).toEqual([]);

      const bytes = [...sqlite.answers.values()].reduce((sum, body) => sum + Buffer.byteLength(body), 0);
      const days = Math.ceil((workloadEnd - workloadStart) / 86_400_000);
      console.log(
        `store differential: ${sqlite.calls} calls over ${days} UTC days, ${sqlite.orgs} orgs, ` +
          `${sqlite.answers.size} answers of the 7 report routes and the console's 3 compared, ${bytes} bytes alike on SQLite and PostgreSQL`,
      );
    });
  },
);

/** The workload is what it says: the answers compared show every pricing state, refusals, re-pricing, short windows. */
function expectEveryCase(answers: Map<string, string>) {
  const ok = [...answers].flatMap(([query, answer]) =>
    answer.startsWith("200 ") ? [{ query, body: JSON.parse(answer.slice(4)) as Json }] : [],
  );
  const of = (part: string) => ok.filter((a) => a.query.includes(part)).map((a) => a.body);
  const states = new Set(of("/cost").map((c) => c.unpriced_reason ?? c.pricing_status));
  expect([...states].sort()).toEqual([
    "error_response",
    "incomplete_stream",
    "no_price",
    "no_usage",
    "not_billable",
    "priced",
    "stream_without_usage",
  ]);
  const scopes: Json[] = of("/limits-status").flatMap((r) => r.scopes);
  expect(scopes.some((s) => s.refused.total > 0 && s.budget !== null)).toBe(true);
  // a model first priced after its calls were recorded: re-pricing gave them a cost
  const byModel: Json[] = of(`${queryNows[0]} `).flatMap((r) =>
    Array.isArray(r.group_by) && r.group_by.join() === "model" ? r.groups : [],
  );
  expect(byModel.some((g) => g.model === "diff-unknown" && g.customer_cost_usd > 0)).toBe(true);
  // a price found by a name past ASCII, and none by a name that differs only in case
  expect(byModel.some((g) => g.model === "modèle-ü-🚀" && g.customer_cost_usd > 0)).toBe(true);
  const caseVariant = byModel.filter((g) => g.model === "Diff-A");
  expect(caseVariant.length > 0 && caseVariant.every((g) => g.customer_cost_usd === 0)).toBe(true);
  expect(of("provider-health?window=30m").some((h) => h.total_requests > 0)).toBe(true);
  // the console's routes: a call re-priced from an older price row, slices with spend and
  // latencies, a call log longer than its page
  expect(of("/calls/req_").some((c) => c.cost?.repriced?.from_price_id)).toBe(true);
  const slices: Json[] = of("timeseries?window=30d").flatMap((r) => r.series);
  expect(slices.some((p) => p.spend_usd > 0 && p.p95_first_byte_ms !== null)).toBe(true);
  expect(of("calls?limit=100").some((r) => r.cursor !== null)).toBe(true);
  // a call's cost and sums past 2^53 pico-dollars ($9,007.2), which no float holds to the pico-dollar
  const totals: Json[] = of("usage-summary").flatMap((r) => (r.group_by.length === 0 ? r.groups : []));
  expect(totals.some((g) => g.customer_cost_usd > 9_007.2)).toBe(true);
  expect(of("/cost").some((c) => c.customer_cost_usd > 9_007.2)).toBe(true);
}

/** Every report's answer on a fresh control plane over `store`, keyed by the query (clock and path). */
async function answersOn(store: "sqlite" | "postgres") {
  vi.useFakeTimers({ toFake: ["Date"], now: configuredAt });
  const h = await startControlPlane({ store });
  const bus = createInProcessBus();
  const worker = await startCostingWorker({ db: h.db, bus, jobs: h.jobs, log: silentLogger });
  try {
    const config = await configure(h);
    const calls = generateCalls(config, callCount);
    const cut = Math.floor(calls.length * 0.6);
    await publish(bus, h.jobs, calls.slice(0, cut));
    await addPrices(h, repricings.midRun);
    await h.jobs.idle();
    await publish(bus, h.jobs, calls.slice(cut));
    // at least once: a stretch of calls delivered again changes nothing
    await publish(bus, h.jobs, calls.slice(1_000, 1_300));
    await addPrices(h, repricings.atEnd);
    await h.jobs.idle();

    const name = idNamer(config.mintedIds);
    const answers = new Map<string, string>();
    const ask = async (at: string, { apiKey, path }: ReportQuery) => {
      const res = await fetch(h.url + path, { headers: { authorization: `Bearer ${apiKey}` } });
      answers.set(`${at} ${name(path)}`, `${res.status} ${maskRunClock(name(await res.text()))}`);
    };
    for (const at of queryNows) {
      vi.setSystemTime(new Date(at));
      for (const query of projectReports(config)) await ask(at, query);
    }
    for (const query of callCostQueries(config, calls)) await ask("any", query);
    for (const query of callDetailQueries(config, calls)) await ask("any", query);
    return { answers, calls: calls.length, orgs: config.orgs.length };
  } finally {
    await worker.close();
    await bus.close();
    await h.close();
    vi.useRealTimers();
  }
}

/** The events as the gateway publishes them, 250 at a time, each part recorded and priced before the next. */
async function publish(bus: EventBus, jobs: JobQueue, events: CallEvent[]) {
  for (let i = 0; i < events.length; i += 250) {
    for (const event of events.slice(i, i + 250)) bus.publish(callsTopic, event.request_id, event);
    await bus.flush();
    await jobs.idle();
  }
}
