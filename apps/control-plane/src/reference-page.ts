import { controlPlaneErrorStatus } from "@gateway/contracts";
import type { OpenApiDocument } from "./openapi.ts";

type JsonSchema = Record<string, unknown>;

/**
 * The human-readable API reference, rendered from the OpenAPI document (so from the same zod
 * schemas). Self-contained HTML: no scripts, no fonts, nothing fetched from elsewhere.
 */

const html = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`).replace(/`([^`]+)`/g, "<code>$1</code>");

/** A one-line type with its constraints: `string, 1..63, pattern ^[a-z]…$ | null`. */
function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeOf).join(" | ");
  if (schema.$ref) return String(schema.$ref).split("/").at(-1) ?? "object";
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type ?? "any")];
  const parts: string[] = [];
  if (Array.isArray(schema.enum))
    parts.push((schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(" | "));
  else if (types[0] === "array" && schema.items) parts.push(`array of ${typeOf(schema.items as JsonSchema)}`);
  else parts.push(types.filter((t) => t !== "null").join(" | ") || "null");
  if (schema.format) parts.push(String(schema.format));
  const low = schema.minimum ?? schema.minLength;
  const high = schema.maximum ?? schema.maxLength;
  if (low !== undefined || high !== undefined) parts.push(`${low ?? ""}..${high ?? ""}`);
  if (schema.pattern) parts.push(`pattern ${String(schema.pattern)}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ") + (types.includes("null") ? " | null" : "");
}

function fieldRows(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties)
    .map(
      ([name, field]) =>
        `<tr><td><code>${html(name)}</code>${required.has(name) ? "" : " <small>optional</small>"}</td>` +
        `<td>${html(typeOf(field))}</td><td>${html(String(field.description ?? ""))}</td></tr>`,
    )
    .join("");
}

const table = (head: string, rows: string) =>
  rows ? `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>` : "";

interface Operation {
  summary: string;
  description?: string;
  security: Record<string, unknown>[];
  parameters?: (JsonSchema & { name: string; in: string; schema: JsonSchema })[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
  responses: Record<
    string,
    { description: string; content?: { "application/json": { schema: JsonSchema } } }
  >;
  tags: string[];
}

function renderOperation(method: string, path: string, op: Operation): string {
  const auth = op.security.length ? Object.keys(op.security[0] ?? {}).join(", ") : "none";
  const params = table(
    "<th>Parameter</th><th>In</th><th>Type</th><th>Notes</th>",
    (op.parameters ?? [])
      .map(
        (p) =>
          `<tr><td><code>${html(p.name)}</code></td><td>${p.in}</td><td>${html(typeOf(p.schema))}</td>` +
          `<td>${html(String(p.description ?? ""))}</td></tr>`,
      )
      .join(""),
  );
  const body = op.requestBody
    ? `<h4>Body (JSON; unknown fields are refused)</h4>${table(
        "<th>Field</th><th>Type</th><th>Notes</th>",
        fieldRows(op.requestBody.content["application/json"].schema),
      )}`
    : "";
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      const schema = r.content?.["application/json"].schema;
      const fields = schema && Number(status) < 400 ? fieldRows(schema) : "";
      return `<li><b>${status}</b> ${html(r.description)}${table("<th>Field</th><th>Type</th><th>Notes</th>", fields)}</li>`;
    })
    .join("");
  const id = `${method}-${path}`.replace(/[^a-z0-9]+/gi, "-");
  return `<section id="${id}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${html(path)}</code></h3>
<p>${html(op.summary)}${op.description ? `. ${html(op.description)}` : ""}</p>
<p><small>Auth: ${auth}</small></p>${params}${body}<h4>Responses</h4><ul>${responses}</ul></section>`;
}

export function referencePage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const index: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as Operation;
      const tag = op.tags[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)?.push(renderOperation(method, path, op));
      index.push(
        `<li><a href="#${`${method}-${path}`.replace(/[^a-z0-9]+/gi, "-")}">${method.toUpperCase()} ${html(path)}</a></li>`,
      );
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2>${html(tag)}</h2>${ops.join("")}`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${html(doc.info.title)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #eee;padding:.5rem 0}.m{display:inline-block;min-width:4rem;font-size:.8em;color:#fff;padding:.1rem .4rem;border-radius:3px}
.get{background:#2a7}.post{background:#27a}.put{background:#a72}.patch{background:#7a2}.delete{background:#a22}</style></head><body>
<h1>${html(doc.info.title)}</h1><p>${html(doc.info.description ?? "")}</p>
<p>Errors are <code>{"error":{"code","message","details?"}}</code> with a code from: ${Object.entries(
    controlPlaneErrorStatus,
  )
    .map(([code, status]) => `${code} (${status})`)
    .join(
      ", ",
    )}. A resource of another org always answers 404. Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<ul>${index.join("")}</ul>${sections}</body></html>`;
}
