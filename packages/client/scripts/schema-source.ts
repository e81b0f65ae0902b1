import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ControlPlaneServices, createControlPlaneApp } from "@gateway/control-plane";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";

/** The checked-in types: `pnpm client:generate` writes them, the drift test compares with them. */
export const schemaFile = fileURLToPath(new URL("../src/schema.ts", import.meta.url));

const header = `/**
 * Generated from the control plane's /openapi.json by \`pnpm client:generate\`; do not edit.
 * packages/client/test/schema-drift.test.ts fails when this file no longer matches the server.
 */

`;

/** The document the control plane serves, built in-process: the app is made but no handler runs. */
async function openApiDocument(): Promise<OpenAPI3> {
  const app = createControlPlaneApp({} as ControlPlaneServices);
  const res = await app.request("/openapi.json");
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  return (await res.json()) as OpenAPI3;
}

/**
 * The TypeScript types of the document, formatted by the repository's biome so that `pnpm check`
 * accepts the file as written. The same document always gives the same text.
 */
export async function generateSchema(): Promise<string> {
  const ast = await openapiTS(await openApiDocument(), { silent: true });
  const source = header + astToString(ast);
  // biome resolves biome.json from its working directory: the repository root
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  return execFileSync(join(root, "node_modules/.bin/biome"), ["format", `--stdin-file-path=${schemaFile}`], {
    cwd: root,
    input: source,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}
