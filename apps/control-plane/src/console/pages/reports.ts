import type { Hono } from "hono";
import { html } from "hono/html";
import {
  limitsStatusRecord,
  providerHealthRecord,
  workloadStatusRecord,
} from "../../routes/reports/schemas.ts";
import { adminPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, orgOf } from "../context.ts";
import { chosenWindow, percent, windowChoice } from "../format.ts";
import { type Html, layout, table } from "../layout.ts";

const windows = ["30m", "1h", "6h", "24h"] as const;

const reportPath = (c: ConsoleContext, projectId: string, report: string, window: string) =>
  adminPath(orgOf(c), `/projects/${encodeURIComponent(projectId)}/${report}?window=${window}`);

const callLink = (projectId: string, requestId: string) =>
  html`<a href="/console/projects/${projectId}/calls/${requestId}"><code>${requestId}</code></a> `;

function reportPage(c: ConsoleContext, title: string, projectId: string, window: string, body: Html) {
  const page = html`${windowChoice(`/console/projects/${projectId}/${title.toLowerCase()}`, window, windows)}${body}`;
  return c.html(
    layout({ title, principal: c.get("session").principal, csrf: c.get("csrf"), projectId, body: page }),
  );
}

async function healthPage(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const window = chosenWindow(c.req.query("window"), windows, "1h");
  const api = c.get("api");
  const [health, status] = await Promise.all([
    api.get(reportPath(c, projectId, "provider-health", window), providerHealthRecord),
    api.get(reportPath(c, projectId, "workload-status", window), workloadStatusRecord),
  ]);
  const providerRows = health.providers.map((p) => [
    p.provider ?? "-",
    p.workload ?? "-",
    p.model ?? "-",
    String(p.request_count),
    `${p.error_5xx_count} (${percent(p.error_5xx_rate)})`,
    String(p.timeout_count),
    String(p.fallback_count),
    p.last_failing_at ?? "-",
    html`${p.example_request_ids.map((id) => callLink(projectId, id))}`,
  ]);
  const workloadRows = status.workloads.map((w) => [
    w.display_name,
    html`<span class="status ${w.status}">${w.status}</span>`,
    w.declared.routed === "none" ? "no route" : `${w.declared.routed}, ${w.declared.split_pct} %`,
    w.mode ?? "-",
    String(w.requests),
    percent(w.error_rate),
    w.served_models.map((m) => `${m.model} (${m.provider_label}) ${percent(m.share)}`).join(", ") || "-",
    w.last_error_at ? `${w.last_error_at} UTC` : "-",
  ]);
  const body = html`<p>${health.total_requests} requests, ${health.total_errors} failing, from
    ${health.window_start} to ${health.window_end} (UTC).</p>
${table(
  "Provider health",
  [
    "Provider",
    "Workload",
    "Model",
    "Requests",
    "5xx",
    "Timeouts",
    "Fallbacks",
    "Last failing (UTC)",
    "Failing calls",
  ],
  providerRows,
  "no traffic in the window.",
)}
${table(
  "Workload status",
  [
    "Workload",
    "Status",
    "Declared route",
    "Observed provider",
    "Requests",
    "Errors",
    "Served models",
    "Last error",
  ],
  workloadRows,
)}`;
  return reportPage(c, "Health", projectId, window, body);
}

const limitText = (limit: number | null, use: number | null) =>
  limit === null ? "-" : `${use ?? "?"} / ${limit}`;

async function limitsPage(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const window = chosenWindow(c.req.query("window"), windows, "1h");
  const status = await c
    .get("api")
    .get(reportPath(c, projectId, "limits-status", window), limitsStatusRecord);
  const rows = status.scopes.map((s) => [
    html`${s.scope} <code>${s.name ?? s.scope_id}</code>`,
    limitText(s.limits.requests_per_minute, s.use.requests_per_minute),
    limitText(s.limits.tokens_per_minute, s.use.tokens_per_minute),
    limitText(s.limits.max_concurrent, s.use.concurrent),
    s.budget
      ? `$${s.budget.spent_usd} of $${s.budget.usd} per ${s.budget.period} (${s.budget.applies_to}), resets ${s.budget.resets_at}`
      : "-",
    `${s.refused.total} (rpm ${s.refused.by_limit.requests_per_minute}, tpm ${s.refused.by_limit.tokens_per_minute}, concurrent ${s.refused.by_limit.max_concurrent}, budget ${s.refused.by_limit.budget})`,
  ]);
  const body = table(
    `Limits and budgets: use now (per minute), spend this period (UTC), calls refused over the last ${window}`,
    ["Scope", "Requests/min", "Tokens/min", "Concurrent", "Budget", "Refused"],
    rows,
    "no limits set.",
  );
  return reportPage(c, "Limits", projectId, window, body);
}

/** The read-only reports: provider health with workload status, limits with their use. */
export function registerReportPages(site: Hono<ConsoleEnv>) {
  site.get("/projects/:project_id/health", healthPage);
  site.get("/projects/:project_id/limits", limitsPage);
}
