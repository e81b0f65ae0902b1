import type { Hono } from "hono";
import { html } from "hono/html";
import { workloadStatusRecord } from "../../routes/reports/schemas.ts";
import { modelListResponse } from "../../routes/routing.ts";
import { workloadSchema } from "../../services/serialize.ts";
import { adminPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, formField, orgOf } from "../context.ts";
import { chosenWindow, percent, windowChoice } from "../format.ts";
import { csrfField, layout, notice, table } from "../layout.ts";
import { workloadsOf } from "./projects.ts";

const windows = ["1h", "6h", "24h"] as const;

async function routesPage(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const orgId = orgOf(c);
  const window = chosenWindow(c.req.query("window"), windows, "24h");
  const api = c.get("api");
  const project = (rest: string) => adminPath(orgId, `/projects/${encodeURIComponent(projectId)}${rest}`);
  const [workloads, models, status] = await Promise.all([
    workloadsOf(c, projectId),
    api.get(adminPath(orgId, "/models"), modelListResponse),
    api.get(project(`/workload-status?window=${window}`), workloadStatusRecord),
  ]);
  const observed = new Map(status.workloads.map((w) => [w.workload_id, w]));
  const csrf = c.get("csrf");
  const rows = workloads.map((w) => {
    const seen = observed.get(w.id);
    const declared = w.route_model_id ? w.route_traffic_pct : 0;
    const options = models
      .filter((m) => m.active || m.id === w.route_model_id)
      .map(
        (m) =>
          html`<option value="${m.id}" ${m.id === w.route_model_id ? "selected" : ""}>${m.display_name} (${m.id})</option>`,
      );
    return [
      w.name,
      html`<form method="post" action="/console/projects/${projectId}/routes/${w.id}" class="inline">${csrfField(csrf)}
        <label>model <select name="model_id" aria-label="Catalog model of ${w.name}">
          <option value="" ${w.route_model_id ? "" : "selected"}>none (passthrough)</option>${options}</select></label>
        <label>share <input name="route_traffic_pct" type="number" min="0" max="100" step="1" value="${w.route_traffic_pct}" aria-label="Share of ${w.name} in percent"> %</label>
        <button type="submit" aria-label="Save route of ${w.name}">Save</button></form>`,
      html`<span class="declared">${declared} %</span>`,
      html`<span class="observed">${seen ? percent(seen.route_shares.gateway) : "-"}</span>`,
      seen ? percent(seen.route_shares.fallback) : "-",
      seen ? percent(seen.route_shares.primary) : "-",
      seen ? String(seen.requests) : "0",
    ];
  });
  // the saved workload by id, named from the list: the query string never puts text on the page
  const saved = workloads.find((w) => w.id === c.req.query("saved"));
  const body = html`${notice(saved ? `Route of ${saved.name} saved.` : null)}
${windowChoice(`/console/projects/${projectId}/routes`, window, windows)}
<p>A route sends its share of a workload's BYO traffic to a catalog model; a routed call that fails
before its first byte is re-issued once to the requested model (fallback).</p>
${table(
  `Routes: declared share against observed shares over the last ${window} (UTC, workload-status report)`,
  ["Workload", "Route", "Declared", "Observed routed", "Fallback", "Primary", "Requests"],
  rows,
)}`;
  return c.html(layout({ title: "Routes", principal: c.get("session").principal, csrf, projectId, body }));
}

/** Routes: each workload's catalog model and share, with the share the traffic actually took. */
export function registerRoutePages(site: Hono<ConsoleEnv>) {
  site.get("/projects/:project_id/routes", routesPage);

  site.post("/projects/:project_id/routes/:workload_id", async (c) => {
    const { project_id: projectId, workload_id: workloadId } = c.req.param();
    const modelId = await formField(c, "model_id");
    const share = Number(await formField(c, "route_traffic_pct"));
    const route = modelId === "" ? { model_id: null } : { model_id: modelId, route_traffic_pct: share };
    const path = adminPath(
      orgOf(c),
      `/projects/${encodeURIComponent(projectId)}/workloads/${encodeURIComponent(workloadId)}/route`,
    );
    const saved = await c.get("api").send("PUT", path, route, workloadSchema);
    return c.redirect(`/console/projects/${projectId}/routes?saved=${encodeURIComponent(saved.id)}`, 303);
  });
}
