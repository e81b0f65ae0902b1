import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, silentLogger } from "@gateway/contracts";
import { controlPlaneClient, type MockProviders, startMockProviders } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Standalone, startStandalone } from "../src/standalone.ts";
import { testEnv } from "./harness.ts";
import { type OldStore, writePgliteDataDir } from "./support/pglite-data-dir.ts";

const oldCalls = 6;

/** A logger that keeps what the start said (info and up), to find the upgrade's one line among it. */
function keptLines() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const keep = (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields });
  const log: Logger = { ...silentLogger, info: keep, warn: keep, error: keep };
  return { log, lines };
}

/**
 * A user's data dir from the release before SQLite (PGlite's store at `<dataDir>/pg`), started by
 * this release: the store is imported once, and the process serves the old org's key and reports
 * its old calls.
 */
describe("the standalone process on a PGlite data dir", () => {
  let mocks: MockProviders;
  let dataDir: string;
  let old: OldStore;

  const start = async () => {
    const { log, lines } = keptLines();
    const gateway = await startStandalone(testEnv(dataDir, mocks), { log });
    return { gateway, lines };
  };
  const chat = async (gateway: Standalone) => {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${old.apiKey}`, "x-gateway-upstream-key": "sk-up" },
      body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const usage = async (gateway: Standalone) => {
    const cp = controlPlaneClient(gateway.url, old.apiKey);
    const { status, json } = await cp(
      "GET",
      `/admin/v1/orgs/${old.orgId}/projects/${old.projectId}/usage-summary?window=7d&group_by=`,
    );
    expect(status).toBe(200);
    return json.groups[0] as { requests: number; customer_cost_usd: number; unpriced_requests: number };
  };

  beforeAll(async () => {
    mocks = await startMockProviders();
    dataDir = await mkdtemp(join(tmpdir(), "gw-pglite-upgrade-"));
    old = await writePgliteDataDir(dataDir, oldCalls);
  }, 120_000);
  afterAll(async () => {
    await mocks?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("imports the old store once, then answers with its org's key and reports its calls", async () => {
    const { gateway, lines } = await start();
    try {
      expect(gateway.firstStart).toBeNull();
      expect(lines.filter((l) => l.message.includes("PGlite"))).toEqual([
        expect.objectContaining({
          message: "imported the PGlite data dir into SQLite",
          fields: expect.objectContaining({ sqlite_file: join(dataDir, "gateway.db") }),
        }),
      ]);
      const files = await readdir(dataDir);
      expect(files).toContain("gateway.db");
      expect(files).not.toContain("pg");
      expect(files.filter((f) => f.startsWith("pg.imported-"))).toHaveLength(1);

      const before = await usage(gateway);
      expect(before).toMatchObject({ requests: oldCalls, unpriced_requests: 0 });
      expect(before.customer_cost_usd).toBeGreaterThan(0);
      const cp = controlPlaneClient(gateway.url, old.apiKey);
      const cost = await cp("GET", `/admin/v1/orgs/${old.orgId}/calls/${old.requestIds[0]}/cost`);
      expect(cost.status).toBe(200);
      expect(cost.json.usage.input_tokens).toBe(1_000);

      expect(await chat(gateway)).toBe(200);
    } finally {
      await gateway.stop();
    }
  });

  it("does not import again at the next start, and keeps what the first one recorded", async () => {
    const { gateway, lines } = await start();
    try {
      expect(gateway.firstStart).toBeNull();
      expect(lines.filter((l) => l.message.includes("PGlite"))).toEqual([]);
      expect((await readdir(dataDir)).filter((f) => f.startsWith("pg"))).toHaveLength(1);
      expect(await chat(gateway)).toBe(200);
      // the old calls and the one the first start recorded
      expect((await usage(gateway)).requests).toBe(oldCalls + 1);
    } finally {
      await gateway.stop();
    }
  });
});
