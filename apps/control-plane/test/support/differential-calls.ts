import type { CallEvent, CallUsage, GatewayEndpoint, LimitName, LimitScope } from "@gateway/contracts";
import { callsTopic } from "@gateway/contracts";
import type { DifferentialConfig, WorkloadConfig } from "./differential-config.ts";
import { edgeTimes, withTwins, withWhales } from "./differential-edge-calls.ts";
import { queryNows } from "./differential-reports.ts";

/** The generated calls' days: 36 UTC days across two month ends (edge calls also sit on the report clocks). */
export const workloadStart = Date.UTC(2026, 0, 27, 0, 0, 0);
export const workloadEnd = Date.UTC(2026, 2, 3, 9, 30, 0);

/** mulberry32: a small seeded PRNG, so the workload is the same on every run and on both stores. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Served models by price state: `diff-a` and `diff-b` get operator prices (re-priced mid-run),
 * as does a name past ASCII; `gpt-5.4` and `claude-sonnet-4-5` are priced by the seeded table,
 * `diff-unknown` has no price until the run gives it one (from mid-workload on), `diff-never`
 * has none at all, nor has `Diff-A`, which only a case-blind store would take for `diff-a`.
 */
const byoModels = [
  "diff-a",
  "diff-b",
  "gpt-5.4",
  "claude-sonnet-4-5",
  "diff-unknown",
  "diff-never",
  "Diff-A",
  "modèle-ü-🚀",
];
const endpoints: GatewayEndpoint[] = ["messages", "chat_completions", "responses", "count_tokens"];
const refusals: [LimitScope, LimitName][] = [
  ["api_key", "requests_per_minute"],
  ["project", "budget"],
  ["workload", "tokens_per_minute"],
  ["workload", "max_concurrent"],
  ["workload", "budget"],
];

/**
 * `count` call events as the gateway publishes them, in time order: every org, project, workload
 * and key of `config`, byo and managed (routed to the catalog model), each arm and fallback,
 * streams cut and whole, upstream errors, limit refusals, usage missing for each reason, token
 * counts up to millions, and the calls of differential-edge-calls.ts (on day, hour and window
 * edges, twins, whales). Upstream request ids repeat, as they do across providers, so the
 * call-cost route's "newest first" rule is exercised.
 */
export function generateCalls(config: DifferentialConfig, count: number, seed = 37): CallEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const edges = edgeTimes(workloadStart, workloadEnd);
  const times = [...edges, ...Array.from({ length: count - edges.length }, () => callTime(random))].sort(
    (a, b) => a - b,
  );
  const events = times.map((at, i) => {
    const workload = pick(config.workloads);
    const refused = chance(0.04) ? pick(refusals) : null;
    return callEvent(i, at, workload, refused, { random, pick, chance });
  });
  return withWhales(withTwins(events), config.workloads[0]!);
}

/**
 * Three calls in four anywhere in the workload's days; the rest in the 26 hours before one of the
 * instants the reports are asked at, so that their short windows (30m, 1h) hold calls too.
 */
function callTime(random: () => number): number {
  if (random() < 0.75) return workloadStart + Math.floor(random() * (workloadEnd - workloadStart));
  const busyUntil = Math.min(Date.parse(queryNows[Math.floor(random() * queryNows.length)]!), workloadEnd);
  return busyUntil - Math.floor(random() * 26 * 3_600_000);
}

interface Draw {
  random: () => number;
  pick: <T>(items: readonly T[]) => T;
  chance: (p: number) => boolean;
}

function callEvent(
  i: number,
  at: number,
  workload: WorkloadConfig,
  refused: [LimitScope, LimitName] | null,
  { random, pick, chance }: Draw,
): CallEvent {
  const routed = workload.routePct > 0 && !refused && chance(workload.routePct / 100);
  const fallback = routed && chance(0.1);
  const endpoint = pick(endpoints);
  const stream = endpoint !== "count_tokens" && chance(0.4);
  const failed = !refused && chance(0.07);
  const status = refused ? 429 : failed ? pick([500, 502, 503, 400]) : 200;
  // a request too malformed to name its model
  const requested = status === 400 && chance(0.5) ? null : pick(byoModels);
  const served =
    refused || requested === null
      ? null
      : routed && !fallback
        ? "diff-small"
        : chance(0.02)
          ? null
          : requested;
  const outcome = !stream
    ? "complete"
    : failed
      ? "upstream_error"
      : chance(0.05)
        ? pick(["truncated", "client_aborted"] as const)
        : "complete";
  const withUsage =
    status === 200 &&
    served !== null &&
    outcome === "complete" &&
    endpoint !== "count_tokens" &&
    !(stream && endpoint === "chat_completions" && chance(0.3)) &&
    !chance(0.03);
  return {
    schema: callsTopic,
    request_id: `req_diff_${String(i).padStart(5, "0")}`,
    org_id: workload.orgId,
    project_id: workload.projectId,
    workload_id: workload.id,
    api_key_id: pick(workload.keyIds),
    received_at: new Date(at).toISOString(),
    endpoint,
    provider_label:
      routed && !fallback ? "managed" : requested?.startsWith("gpt") ? "provider_b" : "provider_a",
    mode: routed && !fallback ? "managed" : "byo",
    route: fallback ? "fallback" : routed ? "gateway" : "primary",
    fallback_reason: fallback ? pick(["timeout", "error"] as const) : null,
    requested_model: requested,
    served_model: served,
    stream,
    status,
    first_byte_ms: refused ? null : 5 + Math.floor(random() * 900),
    total_ms: 10 + Math.floor(random() * 30_000),
    stream_outcome: outcome,
    ...(refused ? { refused_by: { scope: refused[0], limit: refused[1] } } : {}),
    error: failed ? { type: "upstream_error", message: `upstream answered ${status}` } : null,
    upstream_request_id: refused ? null : `up_${Math.floor(random() * 2_000)}`,
    upstream_response_id: refused ? null : `msg_diff_${i}`,
    tags: { team: pick(["search", "billing", "ops"]) },
    usage: withUsage ? usage(random, chance) : null,
    capture: null,
  };
}

/** Token counts from none to millions; the cache write split between its two TTLs. */
function usage(random: () => number, chance: (p: number) => boolean): CallUsage {
  const scale = chance(0.05) ? 3_000_000 : chance(0.3) ? 200_000 : 8_000;
  const count = (max: number) => Math.floor(random() * max);
  const write5m = chance(0.3) ? count(scale / 4) : 0;
  const write1h = chance(0.15) ? count(scale / 8) : 0;
  return {
    input_tokens: count(scale),
    cache_read_input_tokens: chance(0.5) ? count(scale) : 0,
    cache_creation_input_tokens: write5m + write1h,
    cache_creation_5m_input_tokens: write5m,
    cache_creation_1h_input_tokens: write1h,
    output_tokens: count(scale / 10),
    raw: {},
  };
}
