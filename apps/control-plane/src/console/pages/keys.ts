import type { Hono } from "hono";
import { html } from "hono/html";
import { z } from "zod";
import { apiKeyListResponse } from "../../routes/api-keys.ts";
import { apiKeyCreatedSchema } from "../../services/serialize.ts";
import { adminPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, formField, orgOf } from "../context.ts";
import { csrfField, type Html, layout, notice, table } from "../layout.ts";

async function keysPage(c: ConsoleContext, banner: Html) {
  const orgId = orgOf(c);
  const { api_keys } = await c.get("api").get(adminPath(orgId, "/api_keys"), apiKeyListResponse);
  const csrf = c.get("csrf");
  const signedInWith = c.get("session").principal;
  const rows = api_keys.map((k) => [
    k.name ?? "",
    html`<code>${k.obfuscated_value}</code>`,
    k.created_at,
    k.last_used_at ?? "never",
    html`<form method="post" action="/console/keys/${k.id}/revoke">${csrfField(csrf)}
      <button type="submit" aria-label="Revoke ${k.name ?? k.id}">Revoke</button>${
        signedInWith.kind === "org" && signedInWith.keyId === k.id ? " (signs you out)" : ""
      }</form>`,
  ]);
  const body = html`${banner}
<form method="post" action="/console/keys" class="inline">${csrfField(csrf)}
<label for="key-name">Name</label> <input id="key-name" name="name" maxlength="200">
<button type="submit">Create key</button>
</form>
${table("API keys of the org (times in UTC)", ["Name", "Key", "Created", "Last used", ""], rows)}`;
  return c.html(layout({ title: "API keys", principal: signedInWith, csrf, body }));
}

/** Keys: the list (metadata only), create (the value shown once, on the answer to the POST), revoke. */
export function registerKeyPages(site: Hono<ConsoleEnv>) {
  site.get("/keys", (c) => keysPage(c, notice(c.req.query("revoked") === "1" ? "Key revoked." : null)));

  site.post("/keys", async (c) => {
    const name = await formField(c, "name");
    const created = await c
      .get("api")
      .send("POST", adminPath(orgOf(c), "/api_keys"), name ? { name } : {}, apiKeyCreatedSchema);
    // the value is on this answer only: never in a URL, never stored, gone on reload
    const banner = html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">New key ${created.metadata.name ?? created.metadata.id}</h2>
<p>Copy it now: it is shown this once and cannot be read again.</p>
<p><code id="new-key-value">${created.value}</code></p>
</section>`;
    return keysPage(c, banner);
  });

  site.post("/keys/:key_id/revoke", async (c) => {
    const keyId = c.req.param("key_id");
    await c
      .get("api")
      .send("DELETE", adminPath(orgOf(c), `/api_keys/${encodeURIComponent(keyId)}`), undefined, z.null());
    return c.redirect("/console/keys?revoked=1", 303);
  });
}
