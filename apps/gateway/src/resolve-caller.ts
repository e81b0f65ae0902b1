import { createHash } from "node:crypto";
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
  | { ok: false; kind: GatewayErrorKind; message: string };

/**
 * Key → org → project → workload, from the config cache only. The key travels as the endpoint's
 * provider expects it: `x-api-key` on messages-format endpoints, `Authorization: Bearer` elsewhere.
 * Messages-format endpoints also take the bearer form, because provider A's own SDK (1.x) sends
 * its key that way; `x-api-key` wins when both are present.
 */
export async function resolveCaller(
  config: ConfigReader,
  format: WireFormat,
  headers: IncomingHttpHeaders,
): Promise<CallerResult> {
  const presented =
    (format === "messages" ? singleHeader(headers["x-api-key"]) : undefined) ??
    bearerToken(headers.authorization);
  if (!presented) {
    const where = format === "messages" ? "the x-api-key header" : "the Authorization: Bearer header";
    return {
      ok: false,
      kind: "authentication",
      message: `Missing gateway API key: send your sk_ key in ${where}.`,
    };
  }
  // Keys are looked up by their SHA-256: the plaintext is never stored or compared.
  const apiKey = await config.apiKey(createHash("sha256").update(presented).digest("hex"));
  if (!apiKey) return { ok: false, kind: "authentication", message: "Invalid gateway API key." };

  const slug = singleHeader(headers[gatewayRequestHeaders.project]) ?? null;
  const project = await config.project(apiKey.orgId, slug);
  if (!project) {
    const message =
      slug === null
        ? "The organisation has no default project; create one or send x-gateway-project."
        : `Unknown project '${slug}' in x-gateway-project.`;
    return { ok: false, kind: "not_found", message };
  }

  const name = singleHeader(headers[gatewayRequestHeaders.workload]) ?? null;
  const workload = await config.workload(project.id, name);
  if (!workload) {
    const message =
      name === null
        ? `Project '${project.slug}' has no default workload.`
        : `Unknown workload '${name}' in project '${project.slug}' (x-gateway-workload).`;
    return { ok: false, kind: "not_found", message };
  }
  return { ok: true, caller: { apiKey, project, workload } };
}

function bearerToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return match?.[1];
}
