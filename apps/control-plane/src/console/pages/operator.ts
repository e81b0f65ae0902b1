import type { Hono } from "hono";
import { html } from "hono/html";
import { operatorModelListResponse } from "../../routes/operator-catalog.ts";
import { orgListResponse } from "../../routes/operator-orgs.ts";
import { priceListResponse } from "../../routes/operator-prices.ts";
import type { ConsoleContext, ConsoleEnv } from "../context.ts";
import { type Html, layout, table } from "../layout.ts";

const operatorPage = (c: ConsoleContext, title: string, body: Html) =>
  c.html(layout({ title, principal: c.get("session").principal, csrf: c.get("csrf"), body }));

/** The operator token's pages: orgs, the catalog with its deployments, the price table. */
export function registerOperatorPages(site: Hono<ConsoleEnv>) {
  site.get("/operator/orgs", async (c) => {
    const cursor = c.req.query("cursor");
    const query = new URLSearchParams({ limit: "100", ...(cursor ? { cursor } : {}) });
    const page = await c.get("api").get(`/operator/v1/orgs?${query}`, orgListResponse);
    const rows = page.orgs.map((o) => [o.name, html`<code>${o.id}</code>`, o.created_at]);
    const next = page.cursor
      ? html`<p><a href="/console/operator/orgs?cursor=${encodeURIComponent(page.cursor)}">Next page</a></p>`
      : "";
    return operatorPage(
      c,
      "Orgs",
      html`${table("Orgs (created, UTC)", ["Name", "Id", "Created"], rows)}${next}`,
    );
  });

  site.get("/operator/catalog", async (c) => {
    const { models } = await c.get("api").get("/operator/v1/models", operatorModelListResponse);
    const rows = models.map((m) => [
      html`<code>${m.id}</code>`,
      m.display_name,
      m.active ? "active" : "inactive",
      html`${m.deployments.map(
        (d) =>
          html`<div>${d.provider_label} · ${d.wire_format} · <code>${d.upstream_model}</code> at ${d.base_url} (key from ${d.credential_env}, priority ${d.priority})</div>`,
      )}`,
    ]);
    return operatorPage(c, "Catalog", table("Catalog models", ["Id", "Name", "State", "Deployments"], rows));
  });

  site.get("/operator/prices", async (c) => {
    const { prices } = await c.get("api").get("/operator/v1/prices", priceListResponse);
    const rows = prices.map((p) => [
      html`<span id="${p.id}"><code>${p.model}</code></span>`,
      p.effective_from,
      p.input_usd_per_mtok,
      p.cache_write_5m_usd_per_mtok,
      p.cache_write_1h_usd_per_mtok,
      p.cache_read_usd_per_mtok,
      p.output_usd_per_mtok,
      html`<code>${p.id}</code>`,
    ]);
    return operatorPage(
      c,
      "Prices",
      table(
        "Price table (US dollars per million tokens; effective from, UTC)",
        [
          "Model",
          "Effective from",
          "Input",
          "Cache write 5m",
          "Cache write 1h",
          "Cache read",
          "Output",
          "Id",
        ],
        rows,
      ),
    );
  });
}
