import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MockProviders, readStartScript, startMockProviders } from "@gateway/testkit";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { controlPlaneClient, eventually } from "./harness.ts";
import { type MemoryCgroup, makeMemoryCgroup, memoryCgroupUnavailable } from "./support/memory-cgroup.ts";

const limitMiB = 256;
const calls = 240;
const appDir = fileURLToPath(new URL("../", import.meta.url));

const unavailable = memoryCgroupUnavailable();
if (unavailable) {
  // CI is a machine where it can run (as root): there, a limit that cannot be set is a failure
  if (process.env.CI === "true")
    throw new Error(`no memory cgroup for the ${limitMiB} MiB test: ${unavailable}`);
  console.log(`skipped: the all-in-one process under ${limitMiB} MiB needs a memory cgroup: ${unavailable}`);
}

/** The four kinds of call a user sends: each provider's format, as JSON and as SSE (with usage). */
const kinds = [
  { path: "/v1/chat/completions", model: "gpt-5.4-mini", stream: false },
  { path: "/v1/chat/completions", model: "gpt-5.4-mini", stream: true },
  { path: "/v1/messages", model: "claude-sonnet-5", stream: false },
  { path: "/v1/messages", model: "claude-sonnet-5", stream: true },
];

/**
 * The all-in-one process, started as `pnpm start` starts it (its script's node flags and
 * environment), inside a memory cgroup limited to 256 MiB as a container's limit would be: it
 * starts, serves both providers' formats as JSON and SSE, records and prices every call, and the
 * kernel never has to kill it.
 */
describe.skipIf(unavailable)(`the all-in-one process under a ${limitMiB} MiB memory limit`, () => {
  let group: MemoryCgroup | undefined;
  let mocks: MockProviders;
  let dataDir: string;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = "";
  let url: string;

  beforeAll(async () => {
    mocks = await startMockProviders();
    dataDir = await mkdtemp(join(tmpdir(), "gw-memory-limit-"));
    const cgroup = makeMemoryCgroup(limitMiB * 1024 * 1024);
    group = cgroup;
    const { env, command } = readStartScript(join(appDir, "package.json"));
    const [, ...args] = command;
    const { command: shell, args: wrapped } = cgroup.wrap([process.execPath, ...args]);
    child = spawn(shell, wrapped, {
      cwd: appDir,
      env: {
        PATH: process.env.PATH,
        ...env,
        PORT: "0",
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
        GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    // killed at start (the OOM killer, say): fail now, saying so, rather than at the wait's end
    const died = new Promise<never>((_, reject) =>
      child.once("exit", (code, signal) => {
        if (!url)
          reject(
            new Error(
              `exited (${code ?? signal}) before it listened; OOM kills ${cgroup.oomKills()}:\n${output.slice(-2000)}`,
            ),
          );
      }),
    );
    url = await Promise.race([
      eventually(async () => /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1], 60_000),
      died,
    ]);
  }, 90_000);
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    await mocks?.close();
    await rm(dataDir, { recursive: true, force: true });
    group?.remove();
  });

  it("serves, records and prices calls, and is never OOM-killed", async () => {
    const apiKey = await eventually(async () => /api key: (sk_\w+)/.exec(output)?.[1]);
    const orgId = /org id: {2}(org_\w+)/.exec(output)![1]!;
    const cp = controlPlaneClient(url, apiKey);
    const projectId = (await cp("POST", `/admin/v1/orgs/${orgId}/projects/default`)).json.id as string;

    const answered: string[] = [];
    const send = async (n: number) => {
      const kind = kinds[n % kinds.length]!;
      const res = await request(url + kind.path, {
        method: "POST",
        headers: {
          authorization: `Bearer ${apiKey}`,
          "x-gateway-upstream-key": "sk-upstream",
          "anthropic-version": "2023-06-01",
        },
        body: JSON.stringify({
          model: kind.model,
          max_tokens: 64,
          stream: kind.stream,
          ...(kind.stream && kind.model === "gpt-5.4-mini"
            ? { stream_options: { include_usage: true } }
            : {}),
          messages: [{ role: "user", content: `call ${n}` }],
        }),
      });
      const text = await res.body.text();
      expect(res.statusCode, text.slice(0, 200)).toBe(200);
      if (kind.stream) expect(text).toMatch(/data: \[DONE\]|event: message_stop/);
      answered.push(String(res.headers["x-gateway-request-id"]));
    };
    // eight clients at once
    await Promise.all(
      Array.from({ length: 8 }, async (_, lane) => {
        for (let n = lane; n < calls; n += 8) await send(n);
      }),
    );
    expect(answered).toHaveLength(calls);

    // every call listed with its capture, and priced, through the control plane's API
    const listed = async () => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await cp(
          "GET",
          `/customer/v1/orgs/${orgId}/projects/${projectId}/captures?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        ids.push(...page.json.captures.map((c: { request_id: string }) => c.request_id));
        cursor = page.json.cursor;
      } while (cursor);
      return ids;
    };
    await eventually(async () => ((await listed()).length === calls ? true : undefined), 30_000);
    expect((await listed()).sort()).toEqual([...answered].sort());
    const usage = await eventually(async () => {
      const { json } = await cp(
        "GET",
        `/admin/v1/orgs/${orgId}/projects/${projectId}/usage-summary?group_by=`,
      );
      const total = json.groups[0];
      return total?.requests === calls && total.unpriced_requests === 0 ? total : undefined;
    }, 30_000);
    expect(usage.customer_cost_usd).toBeGreaterThan(0);
    for (const id of answered.slice(0, kinds.length)) {
      const cost = await cp("GET", `/admin/v1/orgs/${orgId}/calls/${id}/cost`);
      expect(cost.json.pricing_status).toBe("priced");
      expect(cost.json.customer_cost_usd).toBeGreaterThan(0);
    }

    const cgroup = group!;
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    console.log(
      `all-in-one under ${limitMiB} MiB (cgroup v${cgroup.version}): ${calls} calls served, recorded and priced; ` +
        `peak ${mib(cgroup.peakBytes())} MiB, limit reached ${cgroup.limitHits()} times, OOM kills ${cgroup.oomKills()}`,
    );
    expect(cgroup.oomKills()).toBe(0);
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 180_000);
});
