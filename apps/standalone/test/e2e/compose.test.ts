import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCaptureWriterEnv } from "../../../capture-writer/src/env.ts";
import { parseControlPlaneEnv } from "../../../control-plane/src/env.ts";
import { parseCostingWorkerEnv } from "../../../costing-worker/src/env.ts";
import { parseGatewayEnv } from "../../../gateway/src/env.ts";
import { repoRoot } from "./processes.ts";

// No Docker engine where the tests run, so docker-compose.yml is kept honest here: every app
// service must start its app's own `start` script with an environment that app accepts, built
// from infra/distributed.env (the file the engine scripts read) plus the engines' addresses.

interface Service {
  profiles?: string[];
  restart?: string;
  env_file?: string;
  command?: string;
  environment?: Record<string, string>;
}

const compose = parse(readFileSync(`${repoRoot}docker-compose.yml`, "utf8"), { merge: true }) as {
  services: Record<string, Service>;
};
const shared = Object.fromEntries(
  readFileSync(`${repoRoot}infra/distributed.env`, "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
/** `${NAME:-default}` as compose would expand it with NAME unset. */
const expand = (v: string) => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");

const apps = {
  gateway: { pkg: "@gateway/gateway", parse: parseGatewayEnv },
  "control-plane": { pkg: "@gateway/control-plane", parse: parseControlPlaneEnv },
  "capture-writer": { pkg: "@gateway/capture-writer", parse: parseCaptureWriterEnv },
  "costing-worker": { pkg: "@gateway/costing-worker", parse: parseCostingWorkerEnv },
};

describe("docker-compose.yml", () => {
  it.each(Object.entries(apps))(
    "runs %s from the shared settings with an environment it accepts",
    (name, app) => {
      const service = compose.services[name]!;
      expect(service.profiles).toEqual(["split"]);
      expect(service.env_file).toBe("infra/distributed.env");
      expect(service.command).toContain(`pnpm --filter ${app.pkg} start`);
      const env = {
        ...shared,
        ...Object.fromEntries(
          Object.entries(service.environment ?? {}).map(([k, v]) => [k, expand(String(v))]),
        ),
      };
      expect(() => app.parse(env)).not.toThrow();
    },
  );

  it("keeps the one-process deployment", () => {
    expect(compose.services.standalone?.command).toContain("pnpm start");
  });

  it("restarts every long-running app after a crash, and not the one-shot install", () => {
    for (const name of ["standalone", ...Object.keys(apps)]) {
      expect(compose.services[name]?.restart, name).toBe("unless-stopped");
    }
    expect(compose.services.install?.restart).toBeUndefined();
  });
});
