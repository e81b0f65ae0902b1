import type { HealthRecord, RoutingRecord } from "./project-reports.ts";

const pct = (rate: number) => `${(rate * 100).toFixed(2)}%`;

/**
 * The status report's lines, printed as they are: one line per workload (its route and its
 * traffic over the window), then one indented line per provider and model it used.
 *   main: passthrough · 120 requests in 30m · 5xx 1.67% · 1 timeout · 3 fallbacks
 *     provider_b gpt-5.4-mini: 118 requests · 5xx 1.69% · last failure 2026-05-01T10:00:00.000Z
 */
export function compactLines(routing: RoutingRecord, health: HealthRecord): string[] {
  const lines: string[] = [];
  for (const w of routing.workloads) {
    const route =
      w.route_mode === "passthrough"
        ? "passthrough"
        : `${w.route_mode} ${w.active_traffic_pct}% → ${w.model}${w.provider_label ? ` (${w.provider_label})` : ""}`;
    const entries = health.providers.filter((p) => p.workload === w.display_name);
    const requests = entries.reduce((n, p) => n + p.request_count, 0);
    if (requests === 0) {
      lines.push(`${w.display_name}: ${route} · no traffic in ${health.window}`);
      continue;
    }
    const errors5xx = entries.reduce((n, p) => n + p.error_5xx_count, 0);
    const timeouts = entries.reduce((n, p) => n + p.timeout_count, 0);
    const fallbacks = entries.reduce((n, p) => n + p.fallback_count, 0);
    lines.push(
      `${w.display_name}: ${route} · ${requests} ${plural(requests, "request")} in ${health.window} · 5xx ${pct(errors5xx / requests)} · ${timeouts} ${plural(timeouts, "timeout")} · ${fallbacks} ${plural(fallbacks, "fallback")}`,
    );
    for (const p of entries) {
      const failure = p.last_failing_at ? ` · last failure ${p.last_failing_at}` : "";
      lines.push(
        `  ${p.provider} ${p.model ?? "(no model)"}: ${p.request_count} ${plural(p.request_count, "request")} · 5xx ${pct(p.error_5xx_rate)}${failure}`,
      );
    }
  }
  return lines;
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`);
