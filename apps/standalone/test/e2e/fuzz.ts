import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { type Deployment, operatorToken } from "./deployments.ts";
import { repoRoot } from "./processes.ts";
import { realClientsWanted } from "./real-clients.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";

const run = promisify(execFile);
/** Installed next to the Python SDKs by scripts/install-clients.sh. */
const schemathesis = join(repoRoot, ".tools/clients/python/bin/schemathesis");
/** The whole run's budget: coverage, fuzzing and stateful phases share it. */
const fuzzSeconds = 30;

/**
 * schemathesis's settings: a fixed seed, the checks that matter here (no 5xx, every answer in its
 * documented schema), the fuzz org's id for every `{org_id}`, and each surface's own credential.
 */
function fuzzConfig(orgId: string): string {
  return `seed = 2
workers = 1
[checks]
enabled = false
not_a_server_error.enabled = true
response_schema_conformance.enabled = true
[parameters]
org_id = "${orgId}"
[[operations]]
include-path-regex = "^/operator/"
headers = { Authorization = "Bearer \${FUZZ_OPERATOR_TOKEN}" }
[[operations]]
exclude-path-regex = "^/operator/"
headers = { Authorization = "Bearer \${FUZZ_ORG_KEY}" }
`;
}

/**
 * schemathesis (PyPI) over the control plane's own `/openapi.json`: every operation, with an org
 * key and the operator token, bounded in time. Its exit code is the verdict; the figures it prints
 * go to the log.
 */
export function fuzzScenarios(deployment: () => Deployment, name: string) {
  describe.skipIf(!realClientsWanted)("fuzzed over /openapi.json (GATEWAY_TEST_CLIENTS=1)", () => {
    let org: TestOrg;
    beforeAll(async () => {
      // an org of its own: the fuzzer creates, changes and deletes what it finds
      org = await createTestOrg(deployment());
    });

    it(
      `answers no 5xx and nothing outside its schema, for ${fuzzSeconds} s of schemathesis`,
      async () => {
        const dir = await mkdtemp(join(tmpdir(), "gw-fuzz-"));
        try {
          await writeFile(join(dir, "schemathesis.toml"), fuzzConfig(org.orgId));
          const args = [
            "--config-file",
            join(dir, "schemathesis.toml"),
            "run",
            `${deployment().controlPlane}/openapi.json`,
            "--max-time",
            String(fuzzSeconds),
            // revoking its own key would leave the rest of the run at 401; revocation has its own tests
            "--exclude-path-regex",
            "/api_keys/\\{key_id\\}$",
            "--no-color",
          ];
          const env = { ...process.env, FUZZ_OPERATOR_TOKEN: operatorToken, FUZZ_ORG_KEY: org.apiKey };
          const result = await run(schemathesis, args, {
            env,
            cwd: dir,
            timeout: (fuzzSeconds + 120) * 1_000,
            maxBuffer: 64 * 1024 * 1024,
          }).then(
            ({ stdout }) => ({ code: 0, stdout }),
            (error: { code?: number; stdout?: string }) => ({
              code: error.code ?? -1,
              stdout: error.stdout ?? "",
            }),
          );
          const cases = /(\d+) generated/.exec(result.stdout)?.[1] ?? "?";
          const serverErrors = /Server error: (\d+)/.exec(result.stdout)?.[1] ?? "0";
          const schemaBreaks = /Response violates schema: (\d+)/.exec(result.stdout)?.[1] ?? "0";
          console.log(
            `schemathesis (${name}): ${cases} cases over /openapi.json in ${fuzzSeconds} s, ` +
              `${serverErrors} 5xx, ${schemaBreaks} answers outside their schema, exit ${result.code}`,
          );
          // what failed (or broke in schemathesis itself), with the curl line to reproduce it
          if (result.code !== 0) console.log(result.stdout.slice(-20_000));
          expect(result.code).toBe(0);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
      (fuzzSeconds + 180) * 1_000,
    );
  });
}
