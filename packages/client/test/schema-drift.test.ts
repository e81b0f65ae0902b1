import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { generateSchema, schemaFile } from "../scripts/schema-source.ts";

describe("@gateway/client's generated types", () => {
  it("match the control plane's current /openapi.json", async () => {
    const generated = await generateSchema();
    const checkedIn = await readFile(schemaFile, "utf8");
    // the types describe the routes: a changed route must regenerate them before it merges
    expect(checkedIn, "packages/client/src/schema.ts is stale: run pnpm client:generate").toBe(generated);
  });

  it("describe the routes, not an empty document", async () => {
    const checkedIn = await readFile(schemaFile, "utf8");
    expect(checkedIn).toContain('"/admin/v1/orgs/{org_id}/projects": {');
    expect(checkedIn).toContain("getAdminV1OrgsOrgIdProjectsProjectIdUsageSummary: {");
  });
});
