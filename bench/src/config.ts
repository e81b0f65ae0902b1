/** Other gateways the bench can measure beside ours, installed by bench/peers/install.sh. */
const peerNames = ["portkey", "litellm"] as const;
export type PeerName = (typeof peerNames)[number];

/** BENCH_PIN: the measured targets' core, and the one the load generator and the mock share. */
export const pinnedCores = { target: 1, load: 0 } as const;

/** Benchmark knobs, all from the environment so `pnpm bench` stays one command. */
export interface BenchConfig {
  /** Measured window per target and scenario. */
  durationS: number;
  /** Discarded load before each measured window (JIT, pools, caches). */
  warmupS: number;
  connections: number;
  /** Each round measures every scenario on both targets, alternating which target goes first. */
  rounds: number;
  /** Adds `--cpu-prof` to the gateway process and summarises the profile at the end. */
  profile: boolean;
  /** More node flags for the gateway's process (e.g. `--trace-gc`; its output lands in bench/.out/gateway.log). */
  gatewayNodeFlags: string[];
  /**
   * How a load phase ends. "drain" (default): after a fixed number of requests, sized from the
   * warm-up's rate to last about the duration, so every request in flight completes. "abort":
   * after the duration, with autocannon closing connections mid-response, as impatient clients do.
   */
  stop: "drain" | "abort";
  /** Longest wait, before each warm-up, for other processes on the machine to go quiet. */
  quietWaitS: number;
  /** Longest wait for a target's deferred work (capture, events) to finish after a window. */
  settleMaxS: number;
  /**
   * Which gateway: "standalone" (default), the all-in-one app that also writes every capture and
   * call row; or "split", `apps/gateway` alone on Kafka and Redis (see split-gateway.ts).
   */
  gateway: "standalone" | "split";
  /** Peers measured as targets beside the proxy and the gateway (none by default). */
  peers: PeerName[];
  /**
   * Each measured target on one core of its own, the load generator and the mock on the other,
   * so targets do not compete with the load for a core (off by default).
   */
  pin: boolean;
  /**
   * Requests of the one-client phase that follows each round's load (one connection, one request
   * at a time, after 100 discarded): what a target adds to a single call. 0 leaves it out.
   */
  oneClientRequests: number;
  /**
   * Bytes of the prompt every request carries: 0 (default) sends "hello"; a coding agent sends
   * 50-200 KB of context, and each of its bytes crosses the gateway's event path.
   */
  promptBytes: number;
  /**
   * A 30 % route to a catalog model on the mock (split gateway only): `conversations`, every
   * request naming one of 1,000 conversations, or `draw`, naming none (each drawn on its own).
   * The two against each other: what conversation affinity costs per request.
   */
  route: BenchRoute | null;
  /**
   * The mock's upstream ids: `fresh` (default), every answer its own, as a provider's; `repeated`,
   * the same for the same request body (every "hello" call shares one pair), as the bench ran
   * before 2026-11-29: the all-in-one's indexes on them then only append.
   */
  upstreamIds: "fresh" | "repeated";
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

function nonNegativeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return env[name] === "0" ? 0 : positiveNumber(env, name, fallback);
}

function stopMode(raw: string | undefined): BenchConfig["stop"] {
  if (raw === undefined || raw === "" || raw === "drain") return "drain";
  if (raw === "abort") return "abort";
  throw new Error(`BENCH_STOP must be drain or abort, got ${raw}`);
}

function gatewayKind(raw: string | undefined): BenchConfig["gateway"] {
  if (raw === undefined || raw === "" || raw === "standalone") return "standalone";
  if (raw === "split") return "split";
  throw new Error(`BENCH_GATEWAY must be standalone or split, got ${raw}`);
}

function upstreamIds(raw: string | undefined): BenchConfig["upstreamIds"] {
  if (raw === undefined || raw === "" || raw === "fresh") return "fresh";
  if (raw === "repeated") return "repeated";
  throw new Error(`BENCH_UPSTREAM_IDS must be fresh or repeated, got ${raw}`);
}

function peerList(raw: string | undefined): PeerName[] {
  const names = (raw ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of names)
    if (!(peerNames as readonly string[]).includes(name))
      throw new Error(`BENCH_PEERS: unknown peer ${name} (known: ${peerNames.join(", ")})`);
  return [...new Set(names)] as PeerName[];
}

const flag = (raw: string | undefined) => raw === "1" || raw === "true";

export type BenchRoute = "conversations" | "draw";
/** BENCH_ROUTE: `true` (or `conversations`), `draw`, or unset. */
function benchRoute(raw: string | undefined): BenchRoute | null {
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return null;
  if (flag(raw) || raw === "conversations") return "conversations";
  if (raw === "draw") return "draw";
  throw new Error(`BENCH_ROUTE: expected true, conversations or draw, got ${raw}`);
}

export function readConfig(env: NodeJS.ProcessEnv): BenchConfig {
  const gateway = gatewayKind(env.BENCH_GATEWAY);
  const route = benchRoute(env.BENCH_ROUTE);
  if (route && gateway !== "split") throw new Error("BENCH_ROUTE needs BENCH_GATEWAY=split");
  return {
    durationS: positiveNumber(env, "BENCH_DURATION_S", 10),
    warmupS: positiveNumber(env, "BENCH_WARMUP_S", 3),
    connections: Math.round(positiveNumber(env, "BENCH_CONNECTIONS", 50)),
    rounds: Math.round(positiveNumber(env, "BENCH_ROUNDS", 3)),
    profile: flag(env.BENCH_PROFILE),
    gatewayNodeFlags: (env.BENCH_GATEWAY_NODE_FLAGS ?? "").split(" ").filter((f) => f !== ""),
    stop: stopMode(env.BENCH_STOP),
    quietWaitS: nonNegativeNumber(env, "BENCH_QUIET_WAIT_S", 10),
    settleMaxS: positiveNumber(env, "BENCH_SETTLE_MAX_S", 60),
    gateway,
    peers: peerList(env.BENCH_PEERS),
    pin: flag(env.BENCH_PIN),
    oneClientRequests: Math.round(nonNegativeNumber(env, "BENCH_ONE_CLIENT", 1000)),
    promptBytes: Math.round(nonNegativeNumber(env, "BENCH_PROMPT_BYTES", 0)),
    route,
    upstreamIds: upstreamIds(env.BENCH_UPSTREAM_IDS),
  };
}
