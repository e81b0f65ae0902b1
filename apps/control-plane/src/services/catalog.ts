import { readFile } from "node:fs/promises";
import {
  providerLabels,
  upstreamCredentialEnvPattern,
  upstreamCredentialPrefix,
  wireFormats,
} from "@gateway/contracts";
import { catalogModelWithDeployments, replaceCatalogModel } from "@gateway/db";
import { z } from "zod";
import type { Services } from "./context.ts";

export const catalogModelId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,99}$/,
    "1 to 100 lowercase letters, digits, dots, hyphens or underscores, starting with a letter or digit",
  )
  .meta({ description: "Public catalog id: no provider, endpoint or deployment detail." });

/** Upstream addresses come only from here (operator config), never from a customer request. */
const baseUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((value) => {
    // Runs even when the format check above failed, so an unparsable value must not throw.
    const url = URL.parse(value);
    return url !== null && url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  }, "An http(s) base URL without credentials, query or fragment");

const deploymentInput = z.strictObject({
  provider_label: z.enum(providerLabels),
  wire_format: z.enum(wireFormats),
  base_url: baseUrl.meta({ description: "http(s) URL of the upstream, no `/v1`." }),
  upstream_model: z.string().min(1).max(200),
  credential_env: z
    .string()
    .regex(
      upstreamCredentialEnvPattern,
      `The NAME of an environment variable starting ${upstreamCredentialPrefix} (upper case), never the secret`,
    )
    .meta({
      description: `Name of the env var holding the operator's credential, \`${upstreamCredentialPrefix}<NAME>\`: the gateway reads no other variable for a deployment. The secret is never stored.`,
    }),
  priority: z.int().min(0).max(1000).default(0).meta({ description: "Lower is tried first." }),
});

export const catalogModelInput = z.strictObject({
  display_name: z.string().trim().min(1).max(200),
  active: z.boolean().default(true),
  deployments: z.array(deploymentInput).max(20),
});
export type CatalogModelInput = z.output<typeof catalogModelInput>;

/** The catalog file of `GATEWAY_CATALOG_FILE`: the same model bodies the operator API takes. */
const catalogFile = z.strictObject({
  models: z.array(catalogModelInput.extend({ id: catalogModelId })),
});

/**
 * Creates or replaces a catalog model and its deployment set, then republishes the catalog to
 * the gateway's cache. A deployment that matches an existing one (same provider, format, URL
 * and upstream model) keeps its id, so re-loading the same file changes nothing.
 */
export async function upsertCatalogModel(services: Services, id: string, input: CatalogModelInput) {
  const { created } = await replaceCatalogModel(services.db, id, {
    displayName: input.display_name,
    active: input.active,
    deployments: input.deployments.map((d) => ({
      providerLabel: d.provider_label,
      wireFormat: d.wire_format,
      baseUrl: d.base_url,
      upstreamModel: d.upstream_model,
      credentialEnv: d.credential_env,
      priority: d.priority,
    })),
  });
  await services.sync.catalog(services.db);
  const model = await catalogModelWithDeployments(services.db, id);
  return { created, model: model! };
}

/** Loads `GATEWAY_CATALOG_FILE` at start through the same upsert the operator API uses. */
export async function loadCatalogFile(services: Services, path: string): Promise<number> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`GATEWAY_CATALOG_FILE ${path}: cannot read it as JSON (${(error as Error).message})`);
  }
  const parsed = catalogFile.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`GATEWAY_CATALOG_FILE ${path} is invalid:\n${problems}`);
  }
  const ids = parsed.data.models.map((m) => m.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new Error(`GATEWAY_CATALOG_FILE ${path}: model '${repeated}' appears twice`);
  for (const { id, ...model } of parsed.data.models) await upsertCatalogModel(services, id, model);
  return ids.length;
}
