import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { ConsolePrincipal } from "./session.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What a page tells the layout: its title, the project it is about (if any), its body. */
export interface PageParts {
  title: string;
  principal: ConsolePrincipal | null;
  csrf: string;
  projectId?: string;
  body: Html;
}

const projectTabs = [
  ["overview", "Overview"],
  ["calls", "Calls"],
  ["workloads", "Workloads"],
  ["routes", "Routes"],
  ["health", "Health"],
  ["limits", "Limits"],
] as const;

function navigation(principal: ConsolePrincipal, projectId: string | undefined): Html {
  const links =
    principal.kind === "operator"
      ? html`<a href="/console/operator/orgs">Orgs</a> <a href="/console/operator/catalog">Catalog</a>
          <a href="/console/operator/prices">Prices</a>`
      : html`<a href="/console/projects">Projects</a> <a href="/console/keys">Keys</a>`;
  const tabs = projectId
    ? html`<nav aria-label="Project" class="tabs">
        ${projectTabs.map(
          ([path, label]) =>
            html`<a href="/console/projects/${encodeURIComponent(projectId)}/${path}">${label}</a> `,
        )}
      </nav>`
    : "";
  return html`<nav aria-label="Console">${links}</nav>${tabs}`;
}

/** A hidden field with the session's CSRF token: every console form carries it. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

/** The one page layout: same-origin stylesheet and script only (the CSP allows nothing else). */
export function layout(parts: PageParts): Html {
  const { principal } = parts;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · Gateway console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/uplot.css">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/uplot.js" defer></script>
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<header>
<a class="brand" href="/console">Gateway console</a>
${principal ? navigation(principal, parts.projectId) : ""}
${
  principal
    ? html`<form method="post" action="/console/sign-out" class="sign-out">${csrfField(parts.csrf)}
        <span>${principal.kind === "operator" ? "operator" : principal.orgId}</span>
        <button type="submit">Sign out</button></form>`
    : ""
}
</header>
<main>
<h1>${parts.title}</h1>
${parts.body}
</main>
</body>
</html>`;
}

/** A table cell: text (escaped when rendered) or markup made with `html`. */
export type Cell = Html | string;

/** A table with a caption, its header row and its rows; a sentence instead when it has none. */
export function table(caption: string, head: string[], rows: Cell[][], empty = "Nothing yet."): Html {
  if (rows.length === 0) return html`<p class="empty">${caption}: ${empty}</p>`;
  return html`<table>
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody>
</table>`;
}

/** A note shown above a page after a form did (or could not do) what it asked. */
export const notice = (text: string | null, kind: "ok" | "error" = "ok"): Html =>
  text ? html`<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}">${text}</p>` : html``;
