import { z } from "zod";
import { limitNames, limitScopes } from "./limits.ts";
import {
  armSources,
  fallbackReasons,
  gatewayEndpoints,
  gatewayModes,
  gatewayRoutes,
  providerLabels,
  streamOutcomes,
} from "./provider.ts";
import { callUsageSchema } from "./usage.ts";

export const callsTopic = "gateway.calls.v1";

/** A body as bytes: UTF-8 text when the bytes are valid UTF-8, base64 otherwise. */
const rawBodySchema = z.object({
  encoding: z.enum(["utf8", "base64"]),
  data: z.string(),
});
export type RawBody = z.infer<typeof rawBodySchema>;

/** Present only when the workload captured this request. Headers carry no credential. */
const callCaptureSchema = z.object({
  request_headers: z.record(z.string(), z.string()),
  response_headers: z.record(z.string(), z.string()),
  request_body: rawBodySchema,
  response_body: rawBodySchema,
  /**
   * Bytes of the answer past the gateway's body limit (`GATEWAY_MAX_BODY_BYTES`): the caller got
   * them, the capture holds the answer up to the limit. Absent when the answer is whole.
   */
  response_body_omitted_bytes: z.number().int().positive().optional(),
  /**
   * Bytes of the request left out of the capture: only when the event, bodies included, would
   * not fit the bus's largest message (see the gateway's `fitCapture`). Absent when it is whole.
   */
  request_body_omitted_bytes: z.number().int().positive().optional(),
  /**
   * A streamed answer's timeline: for each chunk the caller was sent, `[byte_offset, ms]`, where
   * it starts in `response_body` and when it went out, in milliseconds since the request was
   * received. Only on streamed answers; added with the console, older events have none.
   */
  response_frames: z.array(z.tuple([z.number().int().nonnegative(), z.number().nonnegative()])).optional(),
});
/**
 * A call event's `capture`: part of the gateway.calls.v1 contract, beside `CallEvent` and `RawBody`.
 * @public
 */
export type CallCapture = z.infer<typeof callCaptureSchema>;

/**
 * `gateway.calls.v1`: one event per request that resolved to a workload. Consumers are
 * idempotent by `request_id`. Additive fields must be optional.
 */
export const callEventSchema = z.object({
  schema: z.literal(callsTopic),
  request_id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  workload_id: z.string(),
  api_key_id: z.string(),
  received_at: z.iso.datetime(),
  endpoint: z.enum(gatewayEndpoints),
  provider_label: z.enum(providerLabels),
  mode: z.enum(gatewayModes),
  route: z.enum(gatewayRoutes),
  /** Why a routed request was re-issued to the original model; set only on `route: "fallback"`. */
  fallback_reason: z.enum(fallbackReasons).nullable().optional(),
  /**
   * How the workload's route chose the arm (`affinity` or `draw`); null when no route applied.
   * Added with conversation affinity: older events have no such field.
   */
  arm_source: z.enum(armSources).nullable().optional(),
  requested_model: z.string().nullable(),
  served_model: z.string().nullable(),
  stream: z.boolean(),
  /** Status the caller received. */
  status: z.number().int(),
  first_byte_ms: z.number().nonnegative().nullable(),
  total_ms: z.number().nonnegative(),
  stream_outcome: z.enum(streamOutcomes),
  /**
   * The limit that refused the call before anything went upstream (429); absent otherwise.
   * Added in the limits release: older events have no such field.
   */
  refused_by: z.object({ scope: z.enum(limitScopes), limit: z.enum(limitNames) }).optional(),
  /** Why the gateway itself failed the call (upstream unreachable, bad input, ...); null otherwise. */
  error: z.object({ type: z.string(), message: z.string() }).nullable(),
  upstream_request_id: z.string().nullable(),
  upstream_response_id: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  usage: callUsageSchema.nullable(),
  capture: callCaptureSchema.nullable(),
});
export type CallEvent = z.infer<typeof callEventSchema>;
