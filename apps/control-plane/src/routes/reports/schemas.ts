import {
  budgetSchema,
  limitScopes,
  limitsSchema,
  pricingStatuses,
  providerLabels,
  unpricedReasons,
} from "@gateway/contracts";
import { usageGroupKeys } from "@gateway/db";
import { z } from "zod";

/**
 * The report records as the routes answer them (interface.md "Reports", docs/decisions.md
 * "Costing and reports"). Every object is strict, so a field added or renamed in a builder without
 * its schema fails the schema test rather than drifting out of /openapi.json.
 */

const timestamp = (description: string) => z.iso.datetime().meta({ description });
const count = (description: string) => z.int().min(0).meta({ description });
const rate = (description: string) => z.number().min(0).max(1).meta({ description });
const windowText = z
  .string()
  .meta({ description: "The window as asked: a positive whole number and a unit `m`, `h` or `d`." });
const windowStart = timestamp("Start of the window (UTC, milliseconds).");
const windowEnd = timestamp("End of the window: the moment of the request.");
const generatedAt = timestamp("When the record was generated (UTC, milliseconds).");
const projectId = z.string().meta({ description: "The project's `proj_` id." });
const providerLabel = z.enum(providerLabels);

// Routing status ---------------------------------------------------------------------------

const routingStatusWorkload = z.strictObject({
  workload_id: z.string(),
  display_name: z.string(),
  environment: z.string().nullable().meta({ description: "Always null: the service has no environments." }),
  route_mode: z.enum(["primary", "gateway", "passthrough"]).meta({
    description:
      "Legacy, kept for compatibility; workload-status is preferred. `primary`: 100% of matching traffic is " +
      "routed through the service. `gateway`: partial canary split of 1 to 99%. `passthrough`: no route; " +
      "models served as requested.",
  }),
  active_traffic_pct: z.int().min(0).max(100).meta({
    description: "0 to 100; percentage of matching requests routed to the managed model.",
  }),
  provider_label: providerLabel.nullable().meta({
    description:
      "`provider_a` or `provider_b` for frontier-API routes; `managed` for routes served by the service's " +
      "own serving infrastructure; null when passthrough.",
  }),
  model: z.string().nullable().meta({
    description:
      "Model id the route targets. Managed routes report `gateway-managed`. Null when passthrough.",
  }),
  updated_at: timestamp("When the workload last changed."),
});

export const routingStatusRecord = z
  .strictObject({
    project_id: projectId,
    workloads: z.array(routingStatusWorkload),
    workload_count: count("Number of workloads."),
    generated_at: generatedAt,
  })
  .meta({ description: "Routing-status record: each workload's declared route." });

// Provider health --------------------------------------------------------------------------

const providerHealthEntry = z.strictObject({
  provider: providerLabel.meta({ description: "Provider label that served the requests." }),
  workload: z.string().meta({ description: "Workload name." }),
  model: z.string().nullable().meta({ description: "Served model; null when none was recorded." }),
  request_count: count("Requests in the window."),
  error_5xx_count: count("Requests answered with a 5xx."),
  error_5xx_rate: rate("error_5xx_count divided by request_count, rounded to four decimal places."),
  timeout_count: count("Requests where the upstream timed out and triggered a fallback."),
  fallback_count: count("Requests that fell back to an alternative route for any reason."),
  last_failing_at: z.iso
    .datetime()
    .nullable()
    .meta({ description: "Last failing request (5xx, broken stream or fallback); null when none." }),
  example_request_ids: z
    .array(z.string())
    .max(5)
    .meta({ description: "Up to 5 request ids of failing requests in the window." }),
});

export const providerHealthRecord = z
  .strictObject({
    project_id: projectId,
    window: windowText,
    window_start: windowStart,
    window_end: windowEnd,
    total_requests: count("Requests in the window."),
    total_errors: count("Failing requests: 5xx, broken streams and fallbacks."),
    providers: z.array(providerHealthEntry),
    generated_at: generatedAt,
  })
  .meta({ description: "Provider-health record: per provider, workload and model over the window." });

// Compact status ---------------------------------------------------------------------------

export const compactStatusRecord = z
  .strictObject({
    project_id: projectId,
    lines: z.array(z.string()).meta({
      description: "Human-readable lines, one or more per workload, to be printed as is.",
    }),
    routing: routingStatusRecord.meta({ description: "The full routing-status record." }),
    health: providerHealthRecord.meta({ description: "The full provider-health record." }),
    generated_at: generatedAt,
  })
  .meta({ description: "Compact-status record." });

// Workload status --------------------------------------------------------------------------

const workloadStatusEntry = z.strictObject({
  workload_id: z.string(),
  display_name: z.string(),
  status: z.enum(["healthy", "degraded", "idle"]).meta({
    description:
      "`healthy`: traffic flowing and 5xx rate under 5%; `degraded`: 5xx rate at or above 5%; `idle`: no " +
      "traffic in the window.",
  }),
  mode: providerLabel.nullable().meta({
    description:
      "Observed provider label; the dominant one when traffic is mixed (ties alphabetical); null when idle. " +
      "Compare with `declared` to spot drift.",
  }),
  declared: z
    .strictObject({
      routed: z.enum(["pin", "steer", "none"]).meta({
        description:
          "`pin` (routed to a specific deployment), `steer` (routed to a model), or `none` (no route; primary).",
      }),
      split_pct: z.number().min(0).max(100).meta({ description: "The traffic dial (0 without a route)." }),
    })
    .meta({ description: "The declared route." }),
  requests: count("Requests in the window."),
  route_shares: z
    .strictObject({
      primary: rate("Requested model served, no route fired."),
      gateway: rate("A route moved the traffic."),
      fallback: rate("Recovery re-issue of the original model after a failed route."),
    })
    .meta({
      description:
        "Observed shares by route outcome; numbers 0 to 1. `primary`: requested model served, no route " +
        "fired. `gateway`: a route moved the traffic. `fallback`: recovery re-issue of the original model " +
        "after a failed route.",
    }),
  error_rate: rate("Share of requests that errored (status ≥ 400 or a broken stream)."),
  last_error_at: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/)
    .nullable()
    .meta({
      description:
        "Date-time with a space separator, milliseconds, no zone designator (UTC); null without errors.",
    }),
  example_request_ids: z.array(z.string()).meta({ description: "Request ids of erroring requests." }),
  served_models: z.array(
    z.strictObject({
      model: z.string().nullable().meta({ description: "Served model; null when none was recorded." }),
      provider_label: providerLabel,
      requests: count("Requests served by this model and provider."),
      share: rate("Share of the workload's requests, 0 to 1."),
    }),
  ),
  rerouted_pct: rate(
    "Share of requests moved by a configured route; equals `route_shares.gateway`. Choosing a catalog " +
      "model by name is not rerouting; that traffic counts as primary.",
  ),
});

export const workloadStatusRecord = z
  .strictObject({
    project_id: projectId,
    window: windowText,
    window_start: windowStart,
    window_end: windowEnd,
    workloads: z.array(workloadStatusEntry),
    workload_count: count("Number of workloads."),
    generated_at: generatedAt,
  })
  .meta({ description: "Workload-status record: observed health next to the declared route." });

// Call cost --------------------------------------------------------------------------------

const usd = (description: string) => z.number().nullable().meta({ description });

export const callCostRecord = z
  .strictObject({
    org_id: z.string(),
    request_id: z.string().meta({ description: "Canonical request id." }),
    pricing_status: z.enum(pricingStatuses),
    unpriced_reason: z
      .enum(unpricedReasons)
      .nullable()
      .meta({ description: "Why the call is not priced; null once priced." }),
    customer_cost_usd: usd("Null while unpriced; never a guessed zero."),
    cost_categories: z
      .strictObject({
        uncached_input_usd: usd("US dollars; null while unpriced."),
        cache_write_usd: usd("US dollars; null while unpriced."),
        cache_read_usd: usd("US dollars; null while unpriced."),
        output_usd: usd("US dollars; null while unpriced."),
      })
      .meta({ description: "The cost by category, in US dollars." }),
    usage: z
      .strictObject({
        input_tokens: count("Uncached input tokens."),
        cache_read_input_tokens: count("Input tokens read from the cache."),
        cache_creation_input_tokens: count("Input tokens written to the cache (both TTLs)."),
        output_tokens: count("Output tokens, reasoning included."),
      })
      .nullable()
      .meta({ description: "The normalised usage; null when the call had none." }),
  })
  .meta({
    description:
      "Call-cost record. Supplier identity, supplier-reported cost and the operator's margin are omitted.",
  });

// Usage summary ----------------------------------------------------------------------------

const usageSummaryGroup = z.strictObject({
  workload_id: z.string().nullable().meta({ description: "Null when not grouped by workload." }),
  workload: z.string().nullable().meta({ description: "Workload name; null when not grouped by workload." }),
  model: z.string().nullable().meta({ description: "Null when not grouped by model." }),
  day: z.iso.date().nullable().meta({ description: "Calendar date (UTC); null when not grouped by day." }),
  requests: count("Requests in the group."),
  input_tokens: count("Uncached input tokens."),
  output_tokens: count("Output tokens."),
  cache_read_input_tokens: count("Input tokens read from the cache."),
  cache_creation_input_tokens: count("Input tokens written to the cache."),
  cache_read_pct: rate("Share of prompt tokens served from cache, four decimals."),
  customer_cost_usd: z
    .number()
    .min(0)
    .meta({ description: "Cost from the same records that drive billing (priced calls only)." }),
  unpriced_requests: count("Requests not (yet) priced, hence not in customer_cost_usd."),
  error_rate: rate("Share of requests that errored."),
});

export const usageSummaryRecord = z
  .strictObject({
    project_id: projectId,
    window: windowText,
    window_start: windowStart,
    window_end: windowEnd,
    group_by: z.array(z.enum(usageGroupKeys)).meta({ description: "The grouping keys, in fixed order." }),
    groups: z.array(usageSummaryGroup),
    generated_at: generatedAt,
  })
  .meta({ description: "Usage-summary record: tokens, cost and error rate per group." });

// Limits status -----------------------------------------------------------------------------

const inUse = (limit: string) =>
  z
    .number()
    .min(0)
    .nullable()
    .meta({ description: `Use the limiter counts against ${limit}; null when that limit is not set.` });

const limitsStatusEntry = z.strictObject({
  scope: z.enum(limitScopes),
  scope_id: z.string(),
  name: z.string().nullable().meta({
    description: "The project's slug, the workload's name, or the key's name (null when the key has none).",
  }),
  limits: limitsSchema.meta({ description: "The limits as set (the admin shape); null means no limit." }),
  use: z
    .strictObject({
      requests_per_minute: inUse("requests_per_minute"),
      tokens_per_minute: inUse("tokens_per_minute"),
      concurrent: inUse("max_concurrent"),
    })
    .meta({
      description:
        "Current use, as the gateway's limiter sees it: requests and tokens held in the last minute's bucket, " +
        "calls in flight. Null everywhere when the limiter is not reachable from the control plane.",
    }),
  budget: budgetSchema
    .extend({
      spent_usd: z.string().meta({
        description:
          "Priced spend in the current period, exact (decimal string): the calls' customer cost, managed calls " +
          "only when applies_to is managed. Calls not priced yet do not count.",
      }),
      period_start: timestamp("First instant of the current period (UTC)."),
      resets_at: timestamp("First instant of the next period, when the spend starts again from zero."),
    })
    .nullable()
    .meta({ description: "The budget and its spend; null without a budget." }),
  refused: z
    .strictObject({
      total: count("Calls of the project this scope's limits refused in the window."),
      by_limit: z.strictObject({
        requests_per_minute: count("Refused by requests_per_minute."),
        tokens_per_minute: count("Refused by tokens_per_minute."),
        max_concurrent: count("Refused by max_concurrent."),
        budget: count("Refused by the budget."),
      }),
    })
    .meta({ description: "Refusals (429) in the window, by the limit that refused." }),
});

export const limitsStatusRecord = z
  .strictObject({
    project_id: projectId,
    window: windowText,
    window_start: windowStart,
    window_end: windowEnd,
    scopes: z.array(limitsStatusEntry).meta({
      description: "The project, each of its workloads, and each live key of the org that has limits.",
    }),
    generated_at: generatedAt,
  })
  .meta({
    description: "Limits-status record: each scope's limits, current use, budget spend and refusals.",
  });
