import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, freePort } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./e2e/processes.ts";

/**
 * The standalone process binds its port before it opens its stores: meanwhile it is alive and
 * not ready, then ready, on the one port a load balancer or an orchestrator probes.
 */
describe("standalone probes", () => {
  it("is alive but not ready while starting, then ready", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gw-probes-"));
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ["--experimental-strip-types", `${repoRoot}apps/standalone/src/main.ts`],
      {
        env: { PATH: process.env.PATH ?? "", PORT: String(port), GATEWAY_DATA_DIR: dataDir },
        stdio: "ignore",
      },
    );
    const probe = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return `${res.status} ${((await res.json()) as { status: string }).status}`;
    };
    try {
      const seen = new Set<string>();
      await eventually(async () => {
        const answers = await Promise.all([probe("/livez"), probe("/readyz")]).catch(() => null);
        if (answers) seen.add(answers.join(", "));
        return answers?.[1] === "200 ready";
      }, 60_000);
      // a fresh data dir takes seconds to migrate: the starting state is always seen
      expect([...seen]).toEqual(["200 alive, 503 starting", "200 alive, 200 ready"]);
    } finally {
      child.kill("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
