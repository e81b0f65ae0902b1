import type { apiKeys, captureIndex, projects, workloads } from "@gateway/db";

/** Wire shapes of the interface's resources, from their rows. */

export function apiKeyMetadata(k: typeof apiKeys.$inferSelect) {
  return {
    id: k.id,
    name: k.name,
    obfuscated_value: k.obfuscatedValue,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

export function projectObject(p: typeof projects.$inferSelect) {
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

export function workloadObject(w: typeof workloads.$inferSelect) {
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

export function captureListItem(row: typeof captureIndex.$inferSelect) {
  return {
    key: row.key,
    request_id: row.requestId,
    uploaded: row.uploadedAt.toISOString(),
    size: row.size,
    idp_org_id: row.orgId,
    idp_api_key_id: row.apiKeyId,
  };
}
