import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type MockProviders, startMockProviders } from "@gateway/testkit";
import { type AppProcess, startApp } from "../e2e/processes.ts";
import { eventually } from "../harness.ts";

/**
 * `apps/standalone/src/main.ts` as a process of its own, as a user starts it, on a data dir and
 * a port it keeps across restarts, with the providers mocked; for the tests that kill it or
 * starve it of descriptors.
 */
export interface StandaloneProcess {
  mocks: MockProviders;
  dataDir: string;
  port: number;
  url: string;
  /** The first start's org and its starter key. */
  orgId: string;
  apiKey: string;
  /** The running process; replaced by `restart()`. */
  app: AppProcess;
  /** Starts the process again on the same data dir and port (after a test stopped it). */
  restart(): Promise<AppProcess>;
  close(): Promise<void>;
}

export async function startStandaloneProcess(
  options: { env?: Record<string, string>; fdLimit?: number } = {},
): Promise<StandaloneProcess> {
  const mocks = await startMockProviders();
  const dataDir = await mkdtemp(join(tmpdir(), "gw-process-"));
  const port = await freePort();
  const start = async () =>
    (
      await startApp(
        "standalone",
        "apps/standalone/src/main.ts",
        {
          PORT: String(port),
          GATEWAY_DATA_DIR: dataDir,
          GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
          GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
          ...options.env,
        },
        /"message":"listening"/,
        60_000,
        options.fdLimit,
      )
    ).app;
  const app = await start();
  const process: StandaloneProcess = {
    mocks,
    dataDir,
    port,
    url: `http://127.0.0.1:${port}`,
    apiKey: await eventually(async () => /api key: (sk_\w+)/.exec(app.output())?.[1]),
    orgId: /org id: {2}(org_\w+)/.exec(app.output())![1]!,
    app,
    async restart() {
      process.app = await start();
      return process.app;
    },
    async close() {
      await process.app.stop("SIGKILL");
      await mocks.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return process;
}
