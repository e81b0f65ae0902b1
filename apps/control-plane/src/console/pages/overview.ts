import { timeseriesGroupKeys } from "@gateway/db";
import type { Hono } from "hono";
import { html } from "hono/html";
import type { z } from "zod";
import { timeseriesRecord } from "../../routes/console/timeseries.ts";
import { adminPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, orgOf } from "../context.ts";
import { chosenWindow } from "../format.ts";
import { type Html, layout, table } from "../layout.ts";

const windows = ["hour", "day", "week", "30d"] as const;
type Point = z.infer<typeof timeseriesRecord>["series"][number];
type Metric = keyof Omit<Point, "start">;

/** A chart the client script draws (uPlot), its data in an attribute: no inline script. */
function chart(
  title: string,
  unit: string,
  x: number[],
  series: { label: string; values: (number | null)[] }[],
): Html {
  const data = JSON.stringify({ unit, x, series });
  return html`<figure data-chart="${data}"><figcaption>${title} (UTC)</figcaption><div class="plot"></div></figure>`;
}

const sum = (series: Point[], metric: "calls" | "errors" | "spend_usd") =>
  series.reduce((total, point) => total + point[metric], 0);

/** The overview's links keep the other choice: window and grouping are both in the URL. */
function choices(base: string, window: string, groupBy: string): Html {
  const link = (w: string, g: string) => `${base}?window=${w}${g ? `&group_by=${g}` : ""}`;
  const option = (current: boolean, href: string, label: string) =>
    current ? html`<strong aria-current="page">${label}</strong> ` : html`<a href="${href}">${label}</a> `;
  return html`<nav aria-label="Window" class="windows">Window (UTC): ${windows.map((w) => option(w === window, link(w, groupBy), w))}</nav>
<nav aria-label="Grouping" class="windows">By: ${option(groupBy === "", link(window, ""), "total")}${timeseriesGroupKeys.map(
    (g) => option(g === groupBy, link(window, g), g),
  )}</nav>`;
}

async function overview(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const window = chosenWindow(c.req.query("window"), windows, "day");
  const groupBy = chosenWindow(c.req.query("group_by"), timeseriesGroupKeys, "");
  const query = `window=${window}${groupBy ? `&group_by=${groupBy}` : ""}`;
  const path = adminPath(orgOf(c), `/projects/${encodeURIComponent(projectId)}/timeseries?${query}`);
  const record = await c.get("api").get(path, timeseriesRecord);
  const x = record.series.map((p) => Date.parse(p.start) / 1000);
  const line = (label: string, points: Point[], metric: Metric) => ({
    label,
    values: points.map((p) => p[metric]),
  });
  const groupLabel = (g: (typeof record.groups)[number]) => g.model ?? g.workload ?? g.workload_id ?? "none";
  const charts =
    record.groups.length > 0
      ? [
          chart(
            `Calls by ${groupBy}`,
            "calls",
            x,
            record.groups.map((g) => line(groupLabel(g), g.series, "calls")),
          ),
          chart(
            `Spend by ${groupBy}`,
            "USD",
            x,
            record.groups.map((g) => line(groupLabel(g), g.series, "spend_usd")),
          ),
          chart(
            `p95 latency by ${groupBy}`,
            "ms",
            x,
            record.groups.map((g) => line(groupLabel(g), g.series, "p95_total_ms")),
          ),
        ]
      : [
          chart("Calls and errors", "calls", x, [
            line("calls", record.series, "calls"),
            line("errors", record.series, "errors"),
          ]),
          chart("Spend", "USD", x, [line("spend", record.series, "spend_usd")]),
          chart("Latency", "ms", x, [
            line("p50", record.series, "p50_total_ms"),
            line("p95", record.series, "p95_total_ms"),
          ]),
          chart("Time to first byte", "ms", x, [
            line("p50", record.series, "p50_first_byte_ms"),
            line("p95", record.series, "p95_first_byte_ms"),
          ]),
        ];
  const totals = (series: Point[]) => {
    const calls = sum(series, "calls");
    return [String(calls), String(sum(series, "errors")), `$${sum(series, "spend_usd").toFixed(6)}`];
  };
  const groupRows = record.groups.map((g) => [groupLabel(g), ...totals(g.series)]);
  const sliceRows = record.series.map((p) => [
    p.start,
    String(p.calls),
    String(p.errors),
    `$${p.spend_usd}`,
    `${p.p50_total_ms ?? "-"} / ${p.p95_total_ms ?? "-"}`,
    `${p.p50_first_byte_ms ?? "-"} / ${p.p95_first_byte_ms ?? "-"}`,
  ]);
  const body = html`${choices(`/console/projects/${projectId}/overview`, window, groupBy)}
<p>From ${record.window_start} to ${record.window_end}, time zone ${record.time_zone}, in ${record.step} slices.</p>
${table(`Totals over the last ${window} (UTC)`, ["Calls", "Errors", "Spend"], [totals(record.series)])}
<div class="charts">${charts}</div>
${record.groups.length > 0 ? table(`By ${groupBy} (UTC)`, [groupBy, "Calls", "Errors", "Spend"], groupRows) : ""}
<details><summary>Every slice as a table (UTC)</summary>${table(
    "Slices",
    ["Start (UTC)", "Calls", "Errors", "Spend", "Latency p50 / p95 (ms)", "First byte p50 / p95 (ms)"],
    sliceRows,
  )}</details>`;
  return c.html(
    layout({
      title: "Overview",
      principal: c.get("session").principal,
      csrf: c.get("csrf"),
      projectId,
      body,
    }),
  );
}

/** A project's overview: calls, errors, spend and latencies over a window, in UTC. */
export function registerOverviewPage(site: Hono<ConsoleEnv>) {
  site.get("/projects/:project_id/overview", overview);
}
