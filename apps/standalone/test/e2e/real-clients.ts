import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import type { Deployment } from "./deployments.ts";
import { repoRoot } from "./processes.ts";
import { expectEveryCallRecorded, type MadeCall } from "./recorded.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

const run = promisify(execFile);
/** Where scripts/install-clients.sh puts the clients (.ci/run runs it and sets GATEWAY_TEST_CLIENTS=1). */
const clientsDir = join(repoRoot, ".tools/clients");
const python = join(clientsDir, "python/bin/python");
const codex = join(clientsDir, "npm/node_modules/.bin/codex");
const claude = join(clientsDir, "npm/node_modules/.bin/claude");
const scripts = join(repoRoot, "apps/standalone/test/e2e/clients");
export const realClientsWanted = process.env.GATEWAY_TEST_CLIENTS === "1";
const upstreamKey = "sk-upstream-clients";
/** Each Python client starts an interpreter and imports its SDK (seconds), and the CLIs start slowly. */
const clientTimeoutMs = 240_000;

if (!realClientsWanted) {
  console.log(
    "real-client suite skipped: run scripts/install-clients.sh and set GATEWAY_TEST_CLIENTS=1 (.ci/run does)",
  );
} else if (!existsSync(python) || !existsSync(codex) || !existsSync(claude)) {
  throw new Error(
    `GATEWAY_TEST_CLIENTS=1 but the clients are not in ${clientsDir}: run scripts/install-clients.sh`,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: a client's JSON report, asserted on field by field
type Report = any;

/** Runs one of the Python SDK scripts; resolves with the JSON report it prints. */
async function pythonClient(
  sdk: "openai" | "anthropic",
  baseUrl: string,
  key: string,
  scenario: string,
  headers: Record<string, string>,
): Promise<Report> {
  const args = [join(scripts, `${sdk}_client.py`), baseUrl, key, scenario];
  for (const [name, value] of Object.entries(headers)) args.push(`${name}=${value}`);
  const { stdout } = await run(python, args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/** The Codex configuration the README gives, verbatim but for the gateway's address. */
export async function readmeCodexConfig(gateway: string): Promise<string> {
  const readme = await readFile(join(repoRoot, "README.md"), "utf8");
  const block = /For Codex CLI[\s\S]*?```toml\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no Codex configuration block");
  expect(block).toContain('base_url = "http://127.0.0.1:8080/v1"');
  return block.replace("http://127.0.0.1:8080", gateway);
}

/** `codex exec` with `config` as its whole configuration; resolves with its exit code and output. */
export async function codexExec(config: string, key: string, prompt: string) {
  const home = await mkdtemp(join(tmpdir(), "gw-codex-"));
  try {
    await writeFile(join(home, "config.toml"), config);
    // stdin closed, as in a script: Codex reads more of the prompt from an open stdin
    const child = spawn(codex, ["exec", "--skip-git-repo-check", prompt], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, GATEWAY_KEY: key },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 180_000,
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const result = { code, output };
    return result;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * `claude -p <args>` in `home` (its sessions are kept there, so a later run can resume one),
 * through `gateway` on `workload`; resolves with what it printed.
 */
export async function claudePrint(
  home: string,
  gateway: string,
  key: string,
  workload: string,
  args: string[],
): Promise<string> {
  const { stdout } = await run(claude, ["-p", ...args], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: gateway,
      ANTHROPIC_API_KEY: key,
      ANTHROPIC_CUSTOM_HEADERS: `x-gateway-upstream-key: ${upstreamKey}\nx-gateway-workload: ${workload}`,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    timeout: 180_000,
  });
  return stdout;
}

/**
 * The clients people really point at a gateway, installed from the registries: the Node SDKs
 * (the workspace's own devDependencies), openai-python and anthropic-python (JSON, streams, tool
 * use, count_tokens, hang-ups at [DONE], errors), Codex CLI
 * with the README's configuration verbatim, and Claude Code in print mode. Every call they make is
 * recorded once, with the usage they were shown.
 */
export function realClientScenarios(get: () => Deployment, label: string): void {
  describe.skipIf(!realClientsWanted)("real clients (GATEWAY_TEST_CLIENTS=1)", () => {
    let org: TestOrg;
    const workloads: Record<string, string> = {};
    beforeAll(async () => {
      const d = get();
      org = await createTestOrg(d);
      for (const name of ["node-sdks", "python-sdks", "python-hang-ups", "claude-code"]) {
        const created = await d.cp(
          "POST",
          `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads`,
          { name },
          org.apiKey,
        );
        workloads[name] = created.json.id;
      }
    });
    const gatewayHeaders = (workload: string) => ({
      "x-gateway-upstream-key": upstreamKey,
      "x-gateway-workload": workload,
    });

    it(
      "openai-python and anthropic-python: JSON, streams, tool use and count_tokens, each recorded",
      async () => {
        const d = get();
        const g = d.gateways[0]!;
        const sdkCall = (sdk: "openai" | "anthropic", scenario: string, workload: string) =>
          pythonClient(sdk, sdk === "openai" ? `${g}/v1` : g, org.apiKey, scenario, gatewayHeaders(workload));
        // the calls whose usage the scripts read go to a workload of their own, to compare its usage summary
        const metered: Report[] = [];
        for (const scenario of ["json", "stream"])
          for (const sdk of ["openai", "anthropic"] as const)
            metered.push(await sdkCall(sdk, scenario, "python-sdks"));
        const others = [
          await sdkCall("openai", "tools", "main"),
          await sdkCall("anthropic", "tools", "main"),
          await sdkCall("anthropic", "count_tokens", "main"),
        ];
        expect(others[2].input_tokens).toBeGreaterThan(0);
        for (const r of [...metered, ...others.slice(0, 2)])
          expect(r.text.length, JSON.stringify(r)).toBeGreaterThan(0);
        const made: MadeCall[] = metered.map((r) => ({ requestId: r.request_id, ...r.usage }));
        await expectEveryCallRecorded(d, org, workloads["python-sdks"]!, made);
        for (const r of others) {
          const capture = await within(10_000, async () => {
            const res = await d.cp(
              "GET",
              `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures/${r.request_id}`,
              undefined,
              org.apiKey,
            );
            return res.status === 200 ? res.json : undefined;
          });
          expect(capture.stream_outcome).toBe("complete");
        }
      },
      clientTimeoutMs,
    );

    it(
      "the Node SDKs (openai, @anthropic-ai/sdk): JSON and streams, each recorded with the usage they report",
      async () => {
        const d = get();
        const headers = gatewayHeaders("node-sdks");
        const openai = new OpenAI({
          apiKey: org.apiKey,
          baseURL: `${d.gateways[0]}/v1`,
          defaultHeaders: headers,
          maxRetries: 0,
        });
        const anthropic = new Anthropic({
          apiKey: org.apiKey,
          baseURL: d.gateways.at(-1),
          defaultHeaders: headers,
          maxRetries: 0,
        });
        const messages = [{ role: "user" as const, content: "Name a prime above 90." }];
        const made: MadeCall[] = [];

        const chat = await openai.chat.completions.create({ model: "gpt-5.4-mini", messages }).withResponse();
        made.push({
          requestId: chat.response.headers.get("x-gateway-request-id")!,
          prompt: chat.data.usage!.prompt_tokens,
          output: chat.data.usage!.completion_tokens,
        });
        const chatStream = await openai.chat.completions
          .create({ model: "gpt-5.4-mini", messages, stream: true, stream_options: { include_usage: true } })
          .withResponse();
        let streamed: OpenAI.CompletionUsage | null | undefined = null;
        for await (const chunk of chatStream.data) streamed = chunk.usage ?? streamed;
        made.push({
          requestId: chatStream.response.headers.get("x-gateway-request-id")!,
          prompt: streamed!.prompt_tokens,
          output: streamed!.completion_tokens,
        });

        const prompt = (u: Anthropic.Usage) =>
          u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
        const message = await anthropic.messages
          .create({ model: "claude-sonnet-5", max_tokens: 64, messages })
          .withResponse();
        made.push({
          requestId: message.response.headers.get("x-gateway-request-id")!,
          prompt: prompt(message.data.usage),
          output: message.data.usage.output_tokens,
        });
        const stream = anthropic.messages.stream({ model: "claude-sonnet-5", max_tokens: 64, messages });
        const final = await stream.finalMessage();
        made.push({
          requestId: (await stream.withResponse()).response.headers.get("x-gateway-request-id")!,
          prompt: prompt(final.usage),
          output: final.usage.output_tokens,
        });
        await expectEveryCallRecorded(d, org, workloads["node-sdks"]!, made);
      },
      clientTimeoutMs,
    );

    it(
      "openai-python closing each stream at [DONE], 120 at once: every one recorded complete with its usage",
      async () => {
        const d = get();
        const reports = await Promise.all(
          d.gateways.map((g) =>
            pythonClient(
              "openai",
              `${g}/v1`,
              org.apiKey,
              `hang-ups:${120 / d.gateways.length}`,
              gatewayHeaders("python-hang-ups"),
            ),
          ),
        );
        const made: MadeCall[] = reports.flatMap((r) =>
          r.streams.map((s: Report) => ({ requestId: s.request_id, ...s.usage })),
        );
        expect(made).toHaveLength(120);
        const recorded = await expectEveryCallRecorded(d, org, workloads["python-hang-ups"]!, made);
        console.log(
          `openai-python hang-ups at [DONE] (${label}): ${made.length} streams, ${recorded.complete} recorded complete, ` +
            `${recorded.prompt} prompt + ${recorded.output} output tokens as the client saw them`,
        );
      },
      clientTimeoutMs,
    );

    it(
      "429, 500 and a reset mid-stream reach the SDKs as they do direct: the same errors, never a clean end",
      async () => {
        const d = get();
        const g = d.gateways[0]!;
        const seen: string[] = [];
        for (const sdk of ["openai", "anthropic"] as const) {
          const viaBase = sdk === "openai" ? `${g}/v1` : g;
          const directBase = sdk === "openai" ? `${d.mocks.providerB.url}/v1` : d.mocks.providerA.url;
          for (const status of ["429", "500"]) {
            const fault = { "x-mock-status": status };
            const via = await pythonClient(sdk, viaBase, org.apiKey, `status:${status}`, {
              ...gatewayHeaders("main"),
              ...fault,
            });
            const direct = await pythonClient(sdk, directBase, upstreamKey, `status:${status}`, fault);
            expect(via).toEqual(direct);
            seen.push(`${sdk} ${status}: ${via.error}`);
          }
          const reset = { "x-mock-reset-after-frames": "3" };
          const via = await pythonClient(sdk, viaBase, org.apiKey, "stream-broken", {
            ...gatewayHeaders("main"),
            ...reset,
          });
          const direct = await pythonClient(sdk, directBase, upstreamKey, "stream-broken", reset);
          expect(direct.error).toBeTruthy();
          expect(via.clean_end).toBeUndefined();
          expect(via.error).toBeTruthy();
          seen.push(`${sdk} reset: ${via.error} (direct: ${direct.error})`);
        }
        console.log(`client errors (${label}): ${seen.join("; ")}`);
      },
      clientTimeoutMs,
    );

    it(
      "Codex CLI with the README's configuration verbatim answers, and sees a broken stream fail",
      async () => {
        const d = get();
        const config = await readmeCodexConfig(d.gateways[0]!);
        const ok = await codexExec(config, org.apiKey, "Name a prime above 90.");
        expect(ok.code, ok.output).toBe(0);
        expect(ok.output).toMatch(/tokens used/);
        // The README's config names no mock header; a copy adds the fault and no retries.
        const broken = config
          .replace(
            'http_headers = { "x-gateway-project" = "default" }',
            'http_headers = { "x-gateway-project" = "default", "x-mock-reset-after-frames" = "3" }',
          )
          .replace(
            'wire_api = "responses"',
            'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0',
          );
        expect(broken).toContain("x-mock-reset-after-frames");
        const failed = await codexExec(broken, org.apiKey, "Name a prime above 90.");
        expect(failed.code).not.toBe(0);
        // the message of the gateway's response.failed, not "stream closed before response.completed"
        expect(failed.output).toContain("The connection to the upstream provider failed.");
        console.log(
          `codex exec (${label}): answered, exit 0; broken stream: exit ${failed.code} with the gateway's failure`,
        );
      },
      clientTimeoutMs,
    );

    it(
      "Claude Code in print mode answers through the gateway, every call recorded",
      async () => {
        const d = get();
        const home = await mkdtemp(join(tmpdir(), "gw-claude-"));
        try {
          const stdout = await claudePrint(home, d.gateways[0]!, org.apiKey, "claude-code", [
            "Name a prime above 90.",
          ]);
          expect(stdout.trim().length).toBeGreaterThan(0);
        } finally {
          await rm(home, { recursive: true, force: true });
        }
        const captures = await within(10_000, async () => {
          const list = await d.cp(
            "GET",
            `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads/${workloads["claude-code"]}/captures?limit=100`,
            undefined,
            org.apiKey,
          );
          return list.json.captures.length > 0 ? list.json.captures : undefined;
        });
        console.log(`claude -p (${label}): answered, ${captures.length} call(s) recorded`);
      },
      clientTimeoutMs,
    );
  });
}
