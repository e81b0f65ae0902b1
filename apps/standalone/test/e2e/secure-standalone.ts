import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { controlPlaneClient } from "../harness.ts";
import { operatorToken } from "./deployments.ts";
import { startApp } from "./processes.ts";
import { caFile, freshSecureDatabase, secretFiles } from "./secure-engines.ts";

const listening = /"url":"(http:\/\/[^"]+)"[^\n]*"message":"listening"/;

/**
 * The one-process deployment on the secured PostgreSQL: `GATEWAY_DATABASE_URL_FILE` and
 * `GATEWAY_DATABASE_CA_FILE` (verify-full against the private CA) take it in; the CA of another
 * throwaway CA stops its start with one line.
 */
export function standaloneOnSecurePostgres(): void {
  it("the standalone process runs on PostgreSQL with verify-full against a CA file, and refuses the wrong CA", async () => {
    const work = await mkdtemp(join(tmpdir(), "gw-secure-standalone-"));
    const database = await freshSecureDatabase(`e2e_secure_standalone_${randomBytes(4).toString("hex")}`);
    try {
      const env = {
        PORT: "0",
        GATEWAY_DATA_DIR: join(work, "data"),
        GATEWAY_DATABASE_CA_FILE: caFile(),
        ...(await secretFiles(join(work, "secrets"), {
          GATEWAY_DATABASE_URL: database.url.toString(),
          GATEWAY_OPERATOR_TOKEN: operatorToken,
        })),
      };
      const { app, match } = await startApp("standalone", "apps/standalone/src/main.ts", env, listening);
      try {
        const cp = controlPlaneClient(match[1]!, operatorToken);
        const created = await cp("POST", "/operator/v1/orgs", { name: "secure standalone" });
        expect(created.status).toBe(201);
      } finally {
        await app.stop();
      }
      // in PostgreSQL: the embedded store's folder was never made
      expect(existsSync(join(work, "data", "pg"))).toBe(false);
      const wrong = await startApp(
        "standalone",
        "apps/standalone/src/main.ts",
        { ...env, GATEWAY_DATA_DIR: join(work, "data-2"), GATEWAY_DATABASE_CA_FILE: caFile("wrong-ca.crt") },
        /PostgreSQL's certificate is not trusted/,
      );
      expect(await wrong.app.exited).toBe(1);
      const output = wrong.app.output().trim();
      expect(output).toMatch(/^GATEWAY_DATABASE_CA_FILE: PostgreSQL's certificate is not trusted \(\w+\)$/);
      expect(output.includes(database.url.password)).toBe(false);
    } finally {
      await database.drop();
      await rm(work, { recursive: true, force: true });
    }
  }, 120_000);
}
