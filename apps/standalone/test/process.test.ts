import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockProviders, startMockProviders } from "@gateway/testkit";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.ts";

const mainScript = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const canary = "sk-ant-CANARY-5f0e1d2c3b4a-upstream";

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the product as a user does, `node apps/standalone/src/main.ts`, and waits until it listens. */
async function startProcess(dataDir: string, mocks: MockProviders): Promise<Running> {
  const child = spawn(process.execPath, ["--experimental-strip-types", mainScript], {
    env: {
      PATH: process.env.PATH,
      PORT: "0",
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
      GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      GATEWAY_DRAIN_TIMEOUT_MS: "10000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // a ceiling, not a measure: a first start is slow on a loaded machine
  const url = await eventually(async () => /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1], 60_000).catch(
    (error: unknown) => {
      child.kill("SIGKILL");
      throw error;
    },
  );
  return { child, url, output: () => output, exited };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe("the standalone process", () => {
  let mocks: MockProviders;
  let dataDir: string;
  let first: Running;
  let apiKey: string;
  let orgId: string;
  let logs = "";

  beforeAll(async () => {
    mocks = await startMockProviders();
    dataDir = await mkdtemp(join(tmpdir(), "gw-proc-"));
    first = await startProcess(dataDir, mocks);
    // The banner is a write of its own after the listening line: wait for it too.
    apiKey = await eventually(async () => /api key: (sk_\w+)/.exec(first.output())?.[1]);
    orgId = /org id: {2}(org_\w+)/.exec(first.output())![1]!;
  }, 60_000);
  afterAll(async () => {
    first?.child.kill("SIGKILL");
    await mocks?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const chat = (url: string, extra: Record<string, string> = {}, stream = false) =>
    request(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "x-gateway-upstream-key": canary, ...extra },
      body: JSON.stringify({ model: "gpt-5.4-mini", stream, messages: [{ role: "user", content: "hi" }] }),
    });

  it("prints the starter key once on first start, and it works", async () => {
    expect(first.output()).toContain("First start: created organisation and its starter API key.");
    const res = await chat(first.url);
    expect(res.statusCode).toBe(200);
    await res.body.text();
    const messages = await request(`${first.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": apiKey, "x-gateway-upstream-key": canary, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-5", max_tokens: 8, stream: true, messages: [] }),
    });
    expect(messages.statusCode).toBe(200);
    await messages.body.text();
  });

  it("on SIGTERM stops accepting, finishes the stream in flight, and flushes its events", async () => {
    const inFlight = await chat(first.url, { "x-mock-frame-delay-ms": "150" }, true);
    const requestId = String(inFlight.headers["x-gateway-request-id"]);
    first.child.kill("SIGTERM");
    const streamed = await inFlight.body.text();
    expect(streamed.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(await first.exited).toBe(0);
    await expect(chat(first.url)).rejects.toThrow();
    logs += first.output();

    // Restarted on the same data: no new org, the key still works, and the drained call's
    // capture was written before the first process exited.
    const second = await startProcess(dataDir, mocks);
    try {
      expect(second.output()).not.toContain("First start");
      const capture = await eventually(async () => {
        const res = await request(
          `${second.url}/customer/v1/orgs/${orgId}/projects/${await defaultProjectId(second.url)}/captures/${requestId}`,
          { headers: { authorization: `Bearer ${apiKey}` } },
        );
        if (res.statusCode !== 200) {
          await res.body.dump();
          return undefined;
        }
        return (await res.body.json()) as { response_body: string };
      });
      expect(capture.response_body).toBe(streamed);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
      logs += second.output();
    }
  });

  it("the caller's upstream key appears nowhere on disk or in the logs", async () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(canary);
    const files = await filesUnder(dataDir);
    expect(files.some((f) => f.endsWith(".jsonl"))).toBe(true);
    for (const file of files) {
      const bytes = await readFile(file);
      expect(bytes.includes(canary), file).toBe(false);
      // Our own key is stored only as a hash.
      expect(bytes.includes(apiKey), file).toBe(false);
    }
  });

  async function defaultProjectId(url: string): Promise<string> {
    const res = await request(`${url}/admin/v1/orgs/${orgId}/projects/default`, {
      method: "GET",
      headers: { authorization: `Bearer ${apiKey}` },
    });
    return ((await res.body.json()) as { id: string }).id;
  }
});
