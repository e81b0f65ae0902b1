import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AppName,
  type Deployment,
  startSplitDeployment,
  startStandaloneDeployment,
} from "./deployments.ts";
import type { AppEntry } from "./processes.ts";
import { repoRoot } from "./processes.ts";
import { createTestOrg } from "./scenarios.ts";
import { chatBody, gatewayCall, within } from "./traffic.ts";

const run = promisify(execFile);
const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const apps: AppName[] = engines
  ? ["standalone", "gateway", "control-plane", "capture-writer", "costing-worker"]
  : ["standalone"];

/**
 * What each image holds: `scripts/deploy-folder.sh` (the Dockerfile's own step) builds every
 * app's folder, the folder is copied to an empty directory, and the app runs from the copy with
 * nothing but `node` on PATH: no workspace, no pnpm, no source tree. Each deployment then serves
 * a call and records it, as from the source tree.
 */
describe("deploy folders: every app runs from its folder alone", () => {
  let work: string;
  let entry: (app: AppName) => AppEntry;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "gw-deploy-"));
    const nodeDir = join(work, "bin");
    await mkdir(nodeDir);
    await symlink(process.execPath, join(nodeDir, "node"));
    await mkdir(join(work, "run"));
    // side by side: each is mostly waiting on the disk
    await Promise.all(
      apps.map(async (app) => {
        const built = join(work, "built", app);
        const { stdout } = await run("bash", ["scripts/deploy-folder.sh", app, built], { cwd: repoRoot });
        console.log(stdout.trim());
        // the copy, not the folder the script wrote: nothing may point back at the workspace
        await run("cp", ["-a", built, join(work, "run", app)]);
        await rm(built, { recursive: true });
      }),
    );
    entry = (app) => ({ deployFolder: join(work, "run", app), nodeDir });
  }, 300_000);
  afterAll(() => rm(work, { recursive: true, force: true }));

  /** A BYO call through every gateway of `d`, each answered and its capture listed. */
  async function servesAndRecords(d: Deployment) {
    const org = await createTestOrg(d);
    for (const gateway of d.gateways) {
      const reply = await gatewayCall(gateway, org.apiKey, "/v1/chat/completions", chatBody(1));
      expect(reply.status).toBe(200);
      const path = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures/${reply.requestId}`;
      await within(
        15_000,
        async () => ((await d.cp("GET", path, undefined, org.apiKey)).status === 200 ? true : undefined),
        200,
      );
    }
  }

  it("the standalone process, from its folder: answers a call and records it", async () => {
    const d = await startStandaloneDeployment({ entry });
    try {
      await servesAndRecords(d);
    } finally {
      await d.close();
    }
  }, 120_000);

  it.skipIf(!engines)(
    "the split deployment, each app from its folder, on the engines: answers calls and records them",
    async () => {
      const d = await startSplitDeployment({ entry });
      try {
        await servesAndRecords(d);
      } finally {
        await d.close();
      }
    },
    240_000,
  );
});
