import type { Hono } from "hono";
import { html } from "hono/html";
import type { z } from "zod";
import { callDetailSchema } from "../../routes/console/call-schemas.ts";
import { adminPath, ConsoleApiError, customerPath } from "../api.ts";
import { type ConsoleContext, type ConsoleEnv, orgOf } from "../context.ts";
import { type Html, layout, table } from "../layout.ts";
import {
  bodyBytes,
  bodyOf,
  bodyView,
  type CapturedCall,
  capturedCall,
  framesView,
  headersView,
} from "./call-body.ts";

type CallDetail = z.infer<typeof callDetailSchema>;

async function readCall(c: ConsoleContext, projectId: string, requestId: string) {
  const path = `/projects/${encodeURIComponent(projectId)}/calls/${encodeURIComponent(requestId)}`;
  return c.get("api").get(adminPath(orgOf(c), path), callDetailSchema);
}

/** The capture of a call, or null when the workload did not record it. */
async function readCapture(
  c: ConsoleContext,
  projectId: string,
  requestId: string,
): Promise<CapturedCall | null> {
  try {
    const path = customerPath(orgOf(c), projectId, `/captures/${encodeURIComponent(requestId)}`);
    return await c.get("api").get(path, capturedCall);
  } catch (error) {
    if (error instanceof ConsoleApiError && error.status === 404) return null;
    throw error;
  }
}

function facts(call: CallDetail): Html {
  const entries: [string, string][] = [
    ["Request id", call.request_id],
    ["Received", `${call.received_at} (UTC)`],
    ["Endpoint", call.endpoint],
    ["Mode", call.mode],
    ["Route", [call.route, call.arm_source, call.fallback_reason].filter(Boolean).join(", ")],
    ["Requested model", call.requested_model ?? "-"],
    ["Served model", `${call.served_model ?? "-"} (${call.provider_label})`],
    [
      "Status",
      [String(call.status), call.error_type, call.refused_by && `refused by ${call.refused_by}`]
        .filter(Boolean)
        .join(", "),
    ],
    ["Stream", call.stream ? call.stream_outcome : "not streamed"],
    ["First byte", call.first_byte_ms === null ? "-" : `${call.first_byte_ms.toFixed(1)} ms`],
    ["Total", `${call.total_ms.toFixed(1)} ms`],
    [
      "Tags",
      Object.entries(call.tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ") || "-",
    ],
    ["Upstream ids", [call.upstream_request_id, call.upstream_response_id].filter(Boolean).join(", ") || "-"],
  ];
  return html`<dl class="facts">${entries.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
}

const tokenText = (n: number | null) => (n === null ? "-" : String(n));

function costView(call: CallDetail): Html {
  const { cost } = call;
  const usage = table(
    "Usage (tokens)",
    ["Uncached input", "Cache read", "Cache write 5m", "Cache write 1h", "Output"],
    [
      [
        tokenText(call.input_tokens),
        tokenText(call.cache_read_input_tokens),
        tokenText(call.cache_creation_5m_input_tokens),
        tokenText(call.cache_creation_1h_input_tokens),
        tokenText(call.output_tokens),
      ],
    ],
  );
  if (cost.pricing_status === "unpriced" || !cost.lines || !cost.price) {
    return html`${usage}<p id="cost">Not priced${cost.unpriced_reason ? `: ${cost.unpriced_reason}` : ""}.</p>`;
  }
  const { lines, price } = cost;
  const rows = [
    [
      "Uncached input",
      `${lines.uncached_input.tokens} × $${lines.uncached_input.usd_per_mtok} / M`,
      `$${lines.uncached_input.usd}`,
    ],
    [
      "Cache write",
      `${lines.cache_write.tokens_5m} × $${lines.cache_write.usd_per_mtok_5m} / M + ${lines.cache_write.tokens_1h} × $${lines.cache_write.usd_per_mtok_1h} / M`,
      `$${lines.cache_write.usd}`,
    ],
    [
      "Cache read",
      `${lines.cache_read.tokens} × $${lines.cache_read.usd_per_mtok} / M`,
      `$${lines.cache_read.usd}`,
    ],
    ["Output", `${lines.output.tokens} × $${lines.output.usd_per_mtok} / M`, `$${lines.output.usd}`],
  ];
  return html`${usage}
<p id="cost">Cost <strong>$${cost.customer_cost_usd ?? 0}</strong>, priced at ${cost.priced_at ?? "-"} (UTC)${
    cost.repriced
      ? `; re-priced at ${cost.repriced.at} (UTC) from ${cost.repriced.from_price_id ?? "no price"}`
      : "; never re-priced"
  }.</p>
${table("How the cost is computed", ["Token class", "Tokens × rate", "US dollars"], rows)}
<p id="price-entry">Price entry <code>${price.id}</code> for <code>${price.model}</code>, in force from ${price.effective_from}
${price.effective_until ? `until ${price.effective_until}` : "(still in force)"} (UTC).</p>`;
}

function captureView(projectId: string, call: CallDetail, capture: CapturedCall | null): Html {
  if (!capture)
    return html`<p>No capture: the workload did not record this call (capture off or not sampled).</p>`;
  const raw = (part: string) => `/console/projects/${projectId}/calls/${call.request_id}/raw/${part}`;
  const frames =
    call.stream && capture.response_frames?.length
      ? framesView(bodyOf(capture, "response"), capture.response_frames)
      : "";
  return html`<h2>Request</h2>
${headersView("Request headers as recorded (credentials removed)", capture.request_headers)}
${bodyView("Request body", bodyOf(capture, "request"), capture.request_body_omitted_bytes, raw("request"))}
<h2>Response</h2>
${headersView("Response headers as recorded", capture.response_headers)}
${frames}
${bodyView("Response body", bodyOf(capture, "response"), capture.response_body_omitted_bytes, raw("response"))}`;
}

/** One call: what the gateway recorded, its cost with the price that made it, its bytes. */
export function registerCallPage(site: Hono<ConsoleEnv>) {
  site.get("/projects/:project_id/calls/:request_id", async (c) => {
    const { project_id: projectId, request_id: requestId } = c.req.param();
    const [call, capture] = await Promise.all([
      readCall(c, projectId, requestId),
      readCapture(c, projectId, requestId),
    ]);
    const body = html`${facts(call)}<h2>Cost</h2>${costView(call)}${captureView(projectId, call, capture)}`;
    return c.html(
      layout({
        title: `Call ${requestId}`,
        principal: c.get("session").principal,
        csrf: c.get("csrf"),
        projectId,
        body,
      }),
    );
  });

  // the bytes exactly as recorded, as a download: never rendered, so any content is safe
  site.get("/projects/:project_id/calls/:request_id/raw/:part{request|response}", async (c) => {
    const { project_id: projectId, request_id: requestId, part } = c.req.param();
    const capture = await readCapture(c, projectId, requestId);
    if (!capture) throw new ConsoleApiError(404, "No capture for this call.");
    const bytes = bodyBytes(bodyOf(capture, part === "request" ? "request" : "response"));
    return c.body(new Uint8Array(bytes), 200, {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${requestId}-${part}.bin"`,
    });
  });
}
