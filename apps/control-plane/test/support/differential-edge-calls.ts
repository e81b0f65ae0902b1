import type { CallEvent } from "@gateway/contracts";
import type { WorkloadConfig } from "./differential-config.ts";
import { queryNows, windowLengthsMs } from "./differential-reports.ts";

// The calls of the generated workload placed where the two stores could part ways.

/**
 * Instants on the edges where a store could count a call in the wrong group or window: the last
 * millisecond of each UTC day from `start` to `end` and the first one after it, the same for the
 * last six hours; and each window's start at each clock the reports are asked at, a millisecond
 * before, on it and after it, and the clock itself (a window ends there).
 */
export function edgeTimes(start: number, end: number): number[] {
  const edges: number[] = [];
  for (let day = start + 86_400_000; day < end; day += 86_400_000) edges.push(day - 1, day);
  for (let hour = end - 6 * 3_600_000; hour < end; hour += 3_600_000) edges.push(hour - 1, hour);
  for (const now of queryNows.map((n) => Date.parse(n))) {
    edges.push(now - 1, now);
    for (const length of windowLengthsMs) edges.push(now - length - 1, now - length, now - length + 1);
  }
  return [...new Set(edges)];
}

/**
 * Every 300th call a whale of `workload`: 1.5 billion tokens of diff-a, about $12,000, so that a
 * single call's cost passes 2^53 pico-dollars ($9,007), more than a JS number holds exactly, and
 * the project's sums pass it many times over. diff-a is re-priced mid-run: the old cost is read back.
 */
export function withWhales(events: CallEvent[], workload: WorkloadConfig): CallEvent[] {
  for (let i = 150; i < events.length; i += 300) {
    const { refused_by: _, ...call } = events[i]!;
    events[i] = {
      ...call,
      org_id: workload.orgId,
      project_id: workload.projectId,
      workload_id: workload.id,
      api_key_id: workload.keyIds[0]!,
      endpoint: "messages",
      provider_label: "provider_a",
      mode: "byo",
      route: "primary",
      fallback_reason: null,
      requested_model: "diff-a",
      served_model: "diff-a",
      status: 200,
      stream: false,
      stream_outcome: "complete",
      error: null,
      usage: {
        input_tokens: 900_000_000 + i,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_creation_5m_input_tokens: 0,
        cache_creation_1h_input_tokens: 0,
        output_tokens: 600_000_000 + i,
        raw: {},
      },
    };
  }
  return events;
}

/**
 * Every 97th call made the twin of the one before it: the same org, workload, key, instant and
 * upstream request id (`up_twin_<n>`), so a lookup by that id has two newest calls to choose from.
 */
export function withTwins(events: CallEvent[]): CallEvent[] {
  for (let i = 1; i < events.length; i += 97) {
    const [first, second] = [events[i - 1]!, events[i]!];
    if (first.refused_by || second.refused_by) continue;
    const shared = {
      org_id: first.org_id,
      project_id: first.project_id,
      workload_id: first.workload_id,
      api_key_id: first.api_key_id,
      received_at: first.received_at,
      upstream_request_id: `up_twin_${i}`,
    };
    events[i - 1] = { ...first, ...shared };
    events[i] = { ...second, ...shared };
  }
  return events;
}
