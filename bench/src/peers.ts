/**
 * `BENCH_PEERS`: other gateways measured beside ours, each in front of the same mock provider B and
 * set up as a user would to forward their own OpenAI key to a custom base URL. Installed by
 * bench/peers/install.sh into .tools/bench-peers/ (pinned versions, outside the workspace).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { freePort } from "../../packages/testkit/src/free-port.ts";
import { startChild } from "./children.ts";
import type { PeerName } from "./config.ts";
import { benchModel } from "./load.ts";
import type { Target } from "./measure.ts";

export interface PeerOptions {
  rootDir: string;
  outDir: string;
  /** Provider B's base URL, without /v1. */
  upstream: string;
  /** The core to pin it to, if the run pins its targets. */
  core: number | undefined;
  startTimeoutMs: number;
}

/** The key the client sends as its own OpenAI key; the mock takes any. */
const upstreamKey = "sk-bench";

/** What each peer runs, under .tools/bench-peers/<peer>/. */
const programs: Record<PeerName, string> = {
  portkey: "node_modules/@portkey-ai/gateway/build/start-server.js",
  litellm: "bin/litellm",
};

/** The peer's program; throws, saying how to install it, when it is not installed. */
function program(rootDir: string, peer: PeerName): string {
  const path = join(rootDir, ".tools/bench-peers", peer, programs[peer]);
  if (!existsSync(path)) {
    throw new Error(
      `BENCH_PEERS=${peer}: not installed (${path} missing); run: bash bench/peers/install.sh ${peer}`,
    );
  }
  return path;
}

/**
 * Portkey's open-source gateway (a Hono app on node), headless: no UI. Routing is per request, by
 * its headers: the provider, and the custom host it forwards to with the client's bearer.
 */
async function startPortkey(options: PeerOptions): Promise<Target> {
  const entry = program(options.rootDir, "portkey");
  const port = await freePort();
  const child = await startChild({
    name: "portkey",
    args: [entry, `--port=${port}`, "--headless"],
    env: process.env,
    cwd: options.rootDir,
    logPath: join(options.outDir, "portkey.log"),
    // It prints its banner before it listens; its root route answers once it does.
    ready: { url: `http://127.0.0.1:${port}/` },
    core: options.core,
    timeoutMs: options.startTimeoutMs,
  });
  return {
    name: "portkey",
    pid: child.pid,
    baseUrl: `http://127.0.0.1:${port}`,
    bearer: upstreamKey,
    headers: { "x-portkey-provider": "openai", "x-portkey-custom-host": `${options.upstream}/v1` },
  };
}

/**
 * The LiteLLM proxy as a plain proxy: one model entry for the bench model on the mock, the user's
 * OpenAI key from the environment, no database (no DATABASE_URL: no virtual keys, no spend logs),
 * so clients send its master key (it refuses to start without one), one uvicorn worker in its own
 * process (so its pid is the one measured), logging at errors only, and every remote fetch at start
 * (cost map, blog posts and the like) read from the package instead.
 */
async function startLitellm(options: PeerOptions): Promise<Target> {
  const litellm = program(options.rootDir, "litellm");
  const port = await freePort();
  const configPath = join(options.outDir, "litellm.yaml");
  writeFileSync(
    configPath,
    [
      "model_list:",
      `  - model_name: ${benchModel}`,
      "    litellm_params:",
      `      model: openai/${benchModel}`,
      `      api_base: ${options.upstream}/v1`,
      "      api_key: os.environ/OPENAI_API_KEY",
      "",
    ].join("\n"),
  );
  const { DATABASE_URL: _database, ...env } = process.env;
  const masterKey = `sk-${randomBytes(32).toString("hex")}`;
  const child = await startChild({
    name: "litellm",
    command: litellm,
    args: ["--config", configPath, "--host", "127.0.0.1", "--port", String(port), "--num_workers", "1"],
    env: {
      ...env,
      OPENAI_API_KEY: upstreamKey,
      LITELLM_MASTER_KEY: masterKey,
      LITELLM_LOG: "ERROR",
      LITELLM_LOCAL_MODEL_COST_MAP: "True",
      LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS: "True",
      LITELLM_LOCAL_AUTOROUTER_PRESETS: "True",
      LITELLM_LOCAL_BLOG_POSTS: "True",
      LITELLM_LOCAL_POLICY_TEMPLATES: "True",
      LITELLM_DONT_SHOW_FEEDBACK_BOX: "True",
      DISABLE_ADMIN_UI: "True",
      PYTHONUNBUFFERED: "1",
    },
    cwd: options.outDir,
    logPath: join(options.outDir, "litellm.log"),
    ready: { url: `http://127.0.0.1:${port}/health/liveliness` },
    core: options.core,
    timeoutMs: options.startTimeoutMs,
  });
  return { name: "litellm", pid: child.pid, baseUrl: `http://127.0.0.1:${port}`, bearer: masterKey };
}

/**
 * The version installed, for the report (install.sh pins it, but an older install may linger).
 * Throws when the peer is not installed, so a run can fail before it starts anything.
 */
export function peerVersion(rootDir: string, peer: PeerName): string {
  const path = program(rootDir, peer);
  try {
    if (peer === "portkey") {
      const manifest = join(dirname(dirname(path)), "package.json");
      return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
    }
    const script = 'import importlib.metadata as m; print(m.version("litellm"))';
    return execFileSync(join(dirname(path), "python"), ["-c", script], { encoding: "utf8" }).trim();
  } catch {
    return "(version unknown)";
  }
}

export function startPeer(peer: PeerName, options: PeerOptions): Promise<Target> {
  return peer === "portkey" ? startPortkey(options) : startLitellm(options);
}
