import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
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
    // The start reads its catalog file after the stores are open: a pipe, which this test writes
    // only once it has seen the starting state (a fresh SQLite store opens in a blink).
    const catalog = join(dataDir, "catalog.json");
    execFileSync("mkfifo", [catalog]);
    const child = spawn(
      process.execPath,
      ["--experimental-strip-types", `${repoRoot}apps/standalone/src/main.ts`],
      {
        env: {
          PATH: process.env.PATH ?? "",
          PORT: String(port),
          GATEWAY_DATA_DIR: dataDir,
          GATEWAY_CATALOG_FILE: catalog,
        },
        stdio: "ignore",
      },
    );
    const probe = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return `${res.status} ${((await res.json()) as { status: string }).status}`;
    };
    try {
      const seen = new Set<string>();
      const until = (readiness: string) =>
        eventually(async () => {
          const answers = await Promise.all([probe("/livez"), probe("/readyz")]).catch(() => null);
          if (answers) seen.add(answers.join(", "));
          return answers?.[1] === readiness ? true : undefined;
        }, 60_000);
      await until("503 starting");
      await writeFile(catalog, '{"models":[]}');
      await until("200 ready");
      expect([...seen]).toEqual(["200 alive, 503 starting", "200 alive, 200 ready"]);
    } finally {
      child.kill("SIGKILL");
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
