import {
  armSources,
  gatewayEndpoints,
  gatewayModes,
  gatewayRoutes,
  pricingStatuses,
  providerLabels,
  streamOutcomes,
  unpricedReasons,
} from "@gateway/contracts";
import type { CallStatusFilter } from "@gateway/db";
import { z } from "zod";
import { pageQuery } from "../../validate.ts";

/**
 * The call log's query and answers (docs/usage.md, "The call log"). Every object is strict, so
 * a field added in `@gateway/db`'s builders without its schema fails the route tests rather than
 * drifting out of /openapi.json.
 */

const instant = (description: string) => z.iso.datetime().meta({ description });
const tokens = (description: string) => z.int().min(0).nullable().meta({ description });
const usd = (description: string) => z.number().nullable().meta({ description });
const rate = z.string().meta({ description: "US dollars per million tokens, exact decimal." });

/** `200`, `4xx`, `error`: one status code, a class of them, or every call without a complete answer. */
const statusParam = z
  .string()
  .regex(/^(?:[1-5][0-9]{2}|[1-5]xx|error)$/, "Expected a status code (404), a class (5xx) or error")
  .transform((value): CallStatusFilter => {
    if (value === "error") return "error";
    if (value.endsWith("xx")) {
      const from = Number(value[0]) * 100;
      return { from, to: from + 99 };
    }
    return { code: Number(value) };
  })
  .meta({
    description:
      "One status code (`429`), a class (`5xx`), or `error`: status >= 400 or a stream that broke (truncated, upstream_error).",
  });

export const callLogQuery = pageQuery(50).extend({
  from: instant("Calls received at or after this instant (RFC 3339, UTC: `Z`).").optional(),
  to: instant("Calls received before this instant (RFC 3339, UTC: `Z`).").optional(),
  workload_id: z.string().min(1).optional(),
  model: z.string().min(1).max(200).optional().meta({ description: "The served or the requested model." }),
  mode: z.enum(gatewayModes).optional(),
  route: z
    .enum(gatewayRoutes)
    .optional()
    .meta({ description: "`primary`, `gateway` (a route moved the call) or `fallback`." }),
  status: statusParam.optional(),
  stream_outcome: z.enum(streamOutcomes).optional(),
  request_id: z.string().min(1).optional(),
});

const callLogItemSchema = z.strictObject({
  request_id: z.string(),
  received_at: instant("When the gateway received the call (UTC, milliseconds)."),
  workload_id: z.string(),
  endpoint: z.enum(gatewayEndpoints),
  mode: z.enum(gatewayModes),
  route: z.enum(gatewayRoutes),
  arm_source: z
    .enum(armSources)
    .nullable()
    .meta({ description: "How a route chose the arm; null without one." }),
  requested_model: z.string().nullable(),
  served_model: z.string().nullable(),
  provider_label: z.enum(providerLabels),
  stream: z.boolean(),
  status: z.int().meta({ description: "The status the caller received." }),
  stream_outcome: z.enum(streamOutcomes),
  first_byte_ms: z
    .number()
    .nullable()
    .meta({ description: "Time to the first byte of the answer; null when none came." }),
  total_ms: z.number(),
  input_tokens: tokens("Uncached input tokens; null without usage."),
  cache_read_input_tokens: tokens("Input tokens read from the cache."),
  cache_creation_input_tokens: tokens("Input tokens written to the cache (both TTLs)."),
  output_tokens: tokens("Output tokens."),
  pricing_status: z.enum(pricingStatuses),
  customer_cost_usd: usd("Null while unpriced; never a guessed zero."),
  captured: z.boolean().meta({
    description:
      "Whether a capture exists: read it at /customer/v1/orgs/{org_id}/projects/{project_id}/captures/{request_id}.",
  }),
});

export const callLogResponse = z.strictObject({
  calls: z.array(callLogItemSchema).meta({ description: "Newest first; never bodies, headers or tags." }),
  cursor: z
    .string()
    .nullable()
    .meta({ description: "Pass back as `cursor` (with the same filters); null on the last page." }),
  scanned_through: z.iso.datetime().nullable().meta({
    description:
      "Set when the page stopped at its scan budget (a filter by mode, route, status or stream outcome): nothing more matched back to this instant yet; go on with the cursor. Null otherwise.",
  }),
});

const costLine = z.strictObject({
  tokens: z.int().min(0),
  usd_per_mtok: rate,
  usd: z
    .number()
    .meta({ description: "tokens x usd_per_mtok / 1,000,000, exact, rounded once to a JSON number." }),
});

const priceEntry = z
  .strictObject({
    id: z.string().meta({ description: "The price row (`price_`), as /operator/v1/prices lists it." }),
    model: z.string(),
    effective_from: instant("When the row started to apply."),
    effective_until: instant(
      "When the model's next row took over; null while this one still applies.",
    ).nullable(),
    input_usd_per_mtok: rate,
    cache_write_5m_usd_per_mtok: rate,
    cache_write_1h_usd_per_mtok: rate,
    cache_read_usd_per_mtok: rate,
    output_usd_per_mtok: rate,
  })
  .meta({
    description: "The price row that priced the call: the model's latest row in force at received_at.",
  });

const provenance = z.strictObject({
  pricing_status: z.enum(pricingStatuses),
  unpriced_reason: z.enum(unpricedReasons).nullable(),
  customer_cost_usd: usd("The sum of the four categories; null while unpriced."),
  priced_at: instant("When the cost was computed (its latest costing run).").nullable(),
  price: priceEntry.nullable(),
  lines: z
    .strictObject({
      uncached_input: costLine,
      cache_write: z.strictObject({
        tokens_5m: z.int().min(0),
        usd_per_mtok_5m: rate,
        tokens_1h: z.int().min(0),
        usd_per_mtok_1h: rate,
        usd: z
          .number()
          .meta({ description: "tokens_5m x usd_per_mtok_5m + tokens_1h x usd_per_mtok_1h, / 1,000,000." }),
      }),
      cache_read: costLine,
      output: costLine,
    })
    .nullable()
    .meta({ description: "How the cost is computed, per token class; null while unpriced." }),
  repriced: z
    .strictObject({
      at: instant("When the latest re-pricing changed this call's price."),
      from_price_id: z
        .string()
        .nullable()
        .meta({ description: "The price row it had before; null when it had none." }),
    })
    .nullable()
    .meta({ description: "Null when the call kept the price of its first costing." }),
});

export const callDetailSchema = callLogItemSchema
  .extend({
    api_key_id: z.string(),
    tags: z.record(z.string(), z.string()),
    error_type: z.string().nullable(),
    refused_by: z
      .string()
      .nullable()
      .meta({ description: "`<scope>.<limit>` of the limit that refused the call." }),
    fallback_reason: z.string().nullable(),
    upstream_request_id: z.string().nullable(),
    upstream_response_id: z.string().nullable(),
    cache_creation_5m_input_tokens: tokens("Cache writes with the 5-minute TTL."),
    cache_creation_1h_input_tokens: tokens("Cache writes with the 1-hour TTL."),
    cost: provenance,
  })
  .meta({ description: "One call, without bodies, with its cost's provenance." });
