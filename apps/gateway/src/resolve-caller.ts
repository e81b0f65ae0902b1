import { hash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { ApiKeyEntry, ConfigReader, ProjectEntry, WorkloadEntry } from "@gateway/cache";
import { gatewayRequestHeaders } from "@gateway/contracts";
import type { GatewayErrorKind, WireFormat } from "@gateway/providers";
import { singleHeader } from "./headers.ts";

export interface Caller {
  apiKey: ApiKeyEntry;
  project: ProjectEntry;
  workload: WorkloadEntry;
}

export type CallerResult =
  | { ok: true; caller: Caller }
  /** `apiKey` is set when the key was valid and the project or workload was not. */
  | { ok: false; kind: GatewayErrorKind; message: string; apiKey?: ApiKeyEntry };

export type KeyResult =
  | { ok: true; apiKey: ApiKeyEntry }
  | { ok: false; kind: GatewayErrorKind; message: string };

/**
 * The caller's gateway key, from the config cache only. `x-api-key` is read where the endpoint's
 * provider expects it (messages-format endpoints, and the model list that coding agents of both
 * providers call); `Authorization: Bearer` everywhere. Messages-format endpoints take the bearer
 * form too because provider A's own SDK (1.x) sends its key that way; `x-api-key` wins.
 */
export async function authenticate(
  config: ConfigReader,
  headers: IncomingHttpHeaders,
  acceptsApiKeyHeader: boolean,
): Promise<KeyResult> {
  const presented =
    (acceptsApiKeyHeader ? singleHeader(headers["x-api-key"]) : undefined) ??
    bearerToken(headers.authorization);
  if (!presented) {
    const where = acceptsApiKeyHeader ? "the x-api-key header" : "the Authorization: Bearer header";
    return {
      ok: false,
      kind: "authentication",
      message: `Missing gateway API key: send your sk_ key in ${where}.`,
    };
  }
  // Keys are looked up by their SHA-256: the plaintext is never stored or compared. (The one-shot
  // `hash` rather than a Hash object: 0.3 against 0.8 µs in a loop, ~4 µs less at one client.)
  const apiKey = await config.apiKey(hash("sha256", presented));
  if (!apiKey) return { ok: false, kind: "authentication", message: "Invalid gateway API key." };
  return { ok: true, apiKey };
}

/** Key → org → project (`x-gateway-project`, else the default) → workload (`x-gateway-workload`, else the default). */
export async function resolveCaller(
  config: ConfigReader,
  format: WireFormat,
  headers: IncomingHttpHeaders,
): Promise<CallerResult> {
  const key = await authenticate(config, headers, format === "messages");
  if (!key.ok) return key;
  const { apiKey } = key;

  const slug = singleHeader(headers[gatewayRequestHeaders.project]) ?? null;
  const project = await config.project(apiKey.orgId, slug);
  if (!project) {
    const message =
      slug === null
        ? "The organisation has no default project; create one or send x-gateway-project."
        : `Unknown project '${slug}' in x-gateway-project.`;
    return { ok: false, kind: "not_found", message, apiKey };
  }

  const name = singleHeader(headers[gatewayRequestHeaders.workload]) ?? null;
  const workload = await config.workload(project.id, name);
  if (!workload) {
    const message =
      name === null
        ? `Project '${project.slug}' has no default workload.`
        : `Unknown workload '${name}' in project '${project.slug}' (x-gateway-workload).`;
    return { ok: false, kind: "not_found", message, apiKey };
  }
  return { ok: true, caller: { apiKey, project, workload } };
}

function bearerToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
