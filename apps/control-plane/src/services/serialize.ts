import { limitScopes, limitsSchema } from "@gateway/contracts";
import type {
  ApiKeyRow,
  CaptureIndexRow,
  CatalogModelRow,
  LimitsTarget,
  OrgRow,
  ProjectRow,
  ScopeLimits,
  WorkloadRow,
} from "@gateway/db";
import { z } from "zod";

/**
 * Wire shapes of the interface's resources and the functions that build them from rows. The
 * schemas are what the OpenAPI document publishes; typing each serializer with its schema keeps
 * the two from drifting apart. Every object is strict, so the document closes it
 * (`additionalProperties: false`) and the response test refuses a field sent without its schema.
 */

const timestamp = z.iso.datetime().meta({ description: "ISO 8601 UTC timestamp" });

export const apiKeyMetadataSchema = z.strictObject({
  id: z.string().meta({ description: "Prefix `api_key_`; safe to log." }),
  name: z.string().nullable(),
  obfuscated_value: z.string().meta({ description: "`sk_` + masked middle + last four characters." }),
  created_at: timestamp,
  last_used_at: timestamp
    .nullable()
    .meta({ description: "Null until the key is first used on the gateway." }),
});

export function apiKeyMetadata(k: ApiKeyRow): z.infer<typeof apiKeyMetadataSchema> {
  return {
    id: k.id,
    name: k.name,
    obfuscated_value: k.obfuscatedValue,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

export const apiKeyCreatedSchema = z.strictObject({
  value: z
    .string()
    .nullable()
    .meta({
      description:
        "The plaintext `sk_` key. Shown in this response only, never again: null in an idempotent replay " +
        "(`Idempotent-Replayed: true`), as the value is never stored; revoke the key if its value was lost.",
    }),
  metadata: apiKeyMetadataSchema,
});

export const projectSchema = z.strictObject({
  id: z.string().meta({ description: "Prefix `proj_`." }),
  org_id: z.string(),
  slug: z.string().meta({ description: "Immutable; unique among the org's live projects." }),
  name: z.string(),
  created_at: timestamp,
  settings: z.strictObject({}).meta({ description: "Reserved; empty." }),
  deleted_at: timestamp.nullable(),
});

export function projectObject(p: ProjectRow): z.infer<typeof projectSchema> {
  return {
    id: p.id,
    org_id: p.orgId,
    slug: p.slug,
    name: p.name,
    created_at: p.createdAt.toISOString(),
    settings: {},
    deleted_at: p.deletedAt?.toISOString() ?? null,
  };
}

export const workloadSchema = z.strictObject({
  id: z.string().meta({ description: "Prefix `usp_`." }),
  project_id: z.string(),
  name: z.string(),
  capture_enabled: z.boolean(),
  route_model_id: z.string().nullable().meta({ description: "Catalog id routed to; null is passthrough." }),
  route_traffic_pct: z.number().min(0).max(100),
  capture_sample_rate: z.number().min(0).max(1),
  is_default: z.boolean(),
  created_at: timestamp,
});

export function workloadObject(w: WorkloadRow): z.infer<typeof workloadSchema> {
  return {
    id: w.id,
    project_id: w.projectId,
    name: w.name,
    capture_enabled: w.captureEnabled,
    route_model_id: w.routeModelId,
    route_traffic_pct: w.routeTrafficPct,
    capture_sample_rate: w.captureSampleRate,
    is_default: w.isDefault,
    created_at: w.createdAt.toISOString(),
  };
}

/**
 * The capture's `key` as the interface names it (org, project, API key, receipt day, request id):
 * the object of a capture stored alone, the same name for one in a segment
 * (`captures/<org>/segments/<receipt day>/<segment>.jsonl`), whose object holds many.
 */
function captureName(row: CaptureIndexRow): string {
  if (row.offset === null) return row.key;
  const day = row.key.split("/")[3];
  return `captures/${row.orgId}/${row.projectId}/${row.apiKeyId}/${day}/${row.requestId}.jsonl`;
}

export const captureListItemSchema = z.strictObject({
  key: z.string(),
  request_id: z.string(),
  uploaded: timestamp,
  size: z.int(),
  idp_org_id: z.string(),
  idp_api_key_id: z.string(),
});

export function captureListItem(row: CaptureIndexRow): z.infer<typeof captureListItemSchema> {
  return {
    key: captureName(row),
    request_id: row.requestId,
    uploaded: row.uploadedAt.toISOString(),
    size: row.size,
    idp_org_id: row.orgId,
    idp_api_key_id: row.apiKeyId,
  };
}

export const orgSchema = z.strictObject({ id: z.string(), name: z.string(), created_at: timestamp });

export function orgObject(o: OrgRow): z.infer<typeof orgSchema> {
  return { id: o.id, name: o.name, created_at: o.createdAt.toISOString() };
}

/** The admin list item of a catalog model: public fields only, no deployment detail. */
export const catalogModelItemSchema = z.strictObject({
  id: z.string(),
  display_name: z.string(),
  active: z.boolean(),
  created_at: timestamp,
});

export function catalogModelItem(m: CatalogModelRow): z.infer<typeof catalogModelItemSchema> {
  return { id: m.id, display_name: m.displayName, active: m.active, created_at: m.createdAt.toISOString() };
}

export const scopeLimitsSchema = z.strictObject({
  scope: z.enum(limitScopes),
  scope_id: z
    .string()
    .meta({ description: "The key's `api_key_`, the project's `proj_` or the workload's `usp_` id." }),
  ...limitsSchema.shape,
  updated_at: timestamp
    .nullable()
    .meta({ description: "When the limits last changed; null while the scope has none." }),
});

export function scopeLimitsObject(
  target: LimitsTarget,
  stored: ScopeLimits,
): z.infer<typeof scopeLimitsSchema> {
  return {
    scope: target.scope,
    scope_id: target.scopeId,
    ...stored.limits,
    updated_at: stored.updatedAt?.toISOString() ?? null,
  };
}
