import { gatewayModes, gatewayRoutes, streamOutcomes } from "@gateway/contracts";
import type { Hono } from "hono";
import { html } from "hono/html";
import { callLogResponse } from "../../routes/console/call-schemas.ts";
import { adminPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, orgOf } from "../context.ts";
import { type Html, layout, table } from "../layout.ts";
import { registerCallPage } from "./call.ts";
import { workloadsOf } from "./projects.ts";

/** The filters a bookmark carries, as the query string names them (the API's own names). */
const filterNames = [
  "from",
  "to",
  "workload_id",
  "model",
  "mode",
  "route",
  "status",
  "stream_outcome",
  "request_id",
] as const;

/** A `datetime-local` value is read as UTC, as the form says; the API takes RFC 3339 with `Z`. */
function utcInstant(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(value)) return `${value}Z`;
  return value;
}

function select(
  name: string,
  label: string,
  current: string,
  options: readonly (readonly [string, string])[],
): Html {
  return html`<label>${label}<select name="${name}">
    <option value="">any</option>${options.map(
      ([value, text]) =>
        html`<option value="${value}" ${value === current ? "selected" : ""}>${text}</option>`,
    )}</select></label>`;
}

const text = (name: string, label: string, current: string, type = "text") =>
  html`<label>${label}<input name="${name}" type="${type}" value="${current}"></label>`;

const ms = (value: number | null) => (value === null ? "-" : `${Math.round(value)} ms`);

async function callLog(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const asked = Object.fromEntries(filterNames.map((name) => [name, c.req.query(name)?.trim() ?? ""]));
  const query = new URLSearchParams();
  for (const name of filterNames) {
    const value = asked[name];
    if (value) query.set(name, name === "from" || name === "to" ? utcInstant(value) : value);
  }
  const cursor = c.req.query("cursor");
  if (cursor) query.set("cursor", cursor);
  const path = adminPath(orgOf(c), `/projects/${encodeURIComponent(projectId)}/calls?${query}`);
  const [page, workloads] = await Promise.all([
    c.get("api").get(path, callLogResponse),
    workloadsOf(c, projectId),
  ]);
  const workloadName = new Map(workloads.map((w) => [w.id, w.name]));
  const value = (name: (typeof filterNames)[number]) => asked[name] ?? "";
  const filters = html`<form method="get" class="filters" aria-label="Filters">
${text("from", "From (UTC)", value("from"), "datetime-local")}
${text("to", "To (UTC)", value("to"), "datetime-local")}
${select(
  "workload_id",
  "Workload",
  value("workload_id"),
  workloads.map((w) => [w.id, w.name] as const),
)}
${text("model", "Model", value("model"))}
${select(
  "mode",
  "Mode",
  value("mode"),
  gatewayModes.map((m) => [m, m] as const),
)}
${select(
  "route",
  "Route",
  value("route"),
  gatewayRoutes.map((r) => [r, r === "gateway" ? "gateway (routed)" : r] as const),
)}
${text("status", "Status (200, 5xx, error)", value("status"))}
${select(
  "stream_outcome",
  "Stream outcome",
  value("stream_outcome"),
  streamOutcomes.map((o) => [o, o] as const),
)}
${text("request_id", "Request id", value("request_id"))}
<button type="submit">Filter</button> <a href="/console/projects/${projectId}/calls">Clear</a>
</form>`;
  const rows = page.calls.map((call) => [
    html`<a href="/console/projects/${projectId}/calls/${call.request_id}">${call.received_at}</a>`,
    workloadName.get(call.workload_id) ?? call.workload_id,
    call.endpoint,
    call.requested_model === call.served_model
      ? (call.served_model ?? "-")
      : `${call.requested_model ?? "-"} → ${call.served_model ?? "-"}`,
    call.mode,
    call.route,
    String(call.status),
    call.stream ? call.stream_outcome : "not streamed",
    ms(call.first_byte_ms),
    ms(call.total_ms),
    call.input_tokens === null ? "-" : `${call.input_tokens} / ${call.output_tokens ?? 0}`,
    call.customer_cost_usd === null ? call.pricing_status : `$${call.customer_cost_usd}`,
  ]);
  const next = new URLSearchParams(Object.entries(asked).filter(([, v]) => v !== ""));
  if (page.cursor) next.set("cursor", page.cursor);
  const body = html`${filters}
${table(
  "Calls, newest first (times in UTC)",
  [
    "Received (UTC)",
    "Workload",
    "Endpoint",
    "Model",
    "Mode",
    "Route",
    "Status",
    "Stream",
    "First byte",
    "Total",
    "Tokens in / out",
    "Cost",
  ],
  rows,
  "no call matches.",
)}
${page.scanned_through ? html`<p>Nothing more matched back to ${page.scanned_through} (UTC) yet.</p>` : ""}
${page.cursor ? html`<p><a href="/console/projects/${projectId}/calls?${next.toString()}" rel="next">${page.scanned_through ? "Search further back" : "Older calls"}</a></p>` : ""}`;
  return c.html(
    layout({ title: "Calls", principal: c.get("session").principal, csrf: c.get("csrf"), projectId, body }),
  );
}

/** The call log (filters and cursor in the URL, never bodies) and one call. */
export function registerCallPages(site: Hono<ConsoleEnv>) {
  site.get("/projects/:project_id/calls", callLog);
  registerCallPage(site);
}
