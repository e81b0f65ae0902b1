import type { Hono } from "hono";
import { html } from "hono/html";
import { projectListResponse } from "../../routes/projects.ts";
import { workloadListResponse } from "../../routes/workloads.ts";
import { workloadSchema } from "../../services/serialize.ts";
import { adminPath, customerPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, formField, orgOf } from "../context.ts";
import { csrfField, layout, notice, table } from "../layout.ts";

const projectUrl = (projectId: string, rest: string) =>
  `/console/projects/${encodeURIComponent(projectId)}${rest}`;

/** The workloads of a project, read through the customer surface (the one that lists them). */
export async function workloadsOf(c: ConsoleContext, projectId: string) {
  const { workloads } = await c
    .get("api")
    .get(customerPath(orgOf(c), projectId, "/workloads"), workloadListResponse);
  return workloads;
}

async function workloadsPage(c: ConsoleContext) {
  const projectId = c.req.param("project_id") ?? "";
  const workloads = await workloadsOf(c, projectId);
  const csrf = c.get("csrf");
  const rows = workloads.map((w) => [
    html`${w.name}${w.is_default ? " (default)" : ""}`,
    w.route_model_id ? `${w.route_traffic_pct} % to ${w.route_model_id}` : "passthrough",
    html`<form method="post" action="${projectUrl(projectId, `/workloads/${w.id}`)}" class="inline">${csrfField(csrf)}
      <label><input type="checkbox" name="capture_enabled" value="on" ${w.capture_enabled ? "checked" : ""}> capture</label>
      <label>sampling <input name="capture_sample_rate" type="number" min="0" max="1" step="0.01" value="${w.capture_sample_rate}" aria-label="Sampling of ${w.name}"></label>
      <button type="submit" aria-label="Save capture of ${w.name}">Save</button></form>`,
    w.created_at,
  ]);
  // the saved workload by id, named from the list: the query string never puts text on the page
  const saved = workloads.find((w) => w.id === c.req.query("saved"));
  const body = html`${notice(saved ? `Workload ${saved.name} saved.` : null)}
${table(
  "Workloads (capture: whether calls are recorded; sampling: the fraction recorded, 1 = all)",
  ["Workload", "Route", "Capture", "Created (UTC)"],
  rows,
)}`;
  return c.html(layout({ title: "Workloads", principal: c.get("session").principal, csrf, projectId, body }));
}

/** Projects (with paging) and each project's workloads with their capture settings. */
export function registerProjectPages(site: Hono<ConsoleEnv>) {
  site.get("/projects", async (c) => {
    const cursor = c.req.query("cursor");
    const query = new URLSearchParams({ limit: "50", ...(cursor ? { cursor } : {}) });
    const page = await c.get("api").get(adminPath(orgOf(c), `/projects?${query}`), projectListResponse);
    const rows = page.projects.map((p) => [
      html`<a href="${projectUrl(p.id, "/overview")}">${p.name}</a>`,
      html`<code>${p.slug}</code>`,
      html`<code>${p.id}</code>`,
      p.created_at,
    ]);
    const next = page.cursor
      ? html`<p><a href="/console/projects?cursor=${encodeURIComponent(page.cursor)}">Next page</a></p>`
      : "";
    const body = html`${table("Projects (created, UTC)", ["Name", "Slug", "Id", "Created"], rows)}${next}`;
    return c.html(
      layout({ title: "Projects", principal: c.get("session").principal, csrf: c.get("csrf"), body }),
    );
  });

  site.get("/projects/:project_id", (c) =>
    c.redirect(projectUrl(c.req.param("project_id"), "/overview"), 303),
  );
  site.get("/projects/:project_id/workloads", workloadsPage);

  site.post("/projects/:project_id/workloads/:workload_id", async (c) => {
    const { project_id: projectId, workload_id: workloadId } = c.req.param();
    const rate = Number(await formField(c, "capture_sample_rate"));
    const update = {
      capture_enabled: (await formField(c, "capture_enabled")) === "on",
      ...(Number.isFinite(rate) ? { capture_sample_rate: rate } : {}),
    };
    const path = adminPath(
      orgOf(c),
      `/projects/${encodeURIComponent(projectId)}/workloads/${encodeURIComponent(workloadId)}`,
    );
    const saved = await c.get("api").send("PATCH", path, update, workloadSchema);
    return c.redirect(projectUrl(projectId, `/workloads?saved=${encodeURIComponent(saved.id)}`), 303);
  });
}
