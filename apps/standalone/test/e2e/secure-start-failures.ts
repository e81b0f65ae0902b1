import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { SplitDeployment } from "./deployments.ts";
import { repoRoot } from "./processes.ts";
import { caFile, type SecureEngines, secretFiles, secretsOf } from "./secure-engines.ts";

type App = "gateway" | "control-plane" | "capture-writer" | "costing-worker";
type Engine = "kafka" | "redis" | "postgres" | "s3";

/** The apps that open each engine at start. */
const appsOf: Record<Engine, App[]> = {
  kafka: ["gateway", "capture-writer", "costing-worker"],
  redis: ["gateway", "control-plane", "costing-worker"],
  postgres: ["control-plane", "capture-writer", "costing-worker"],
  s3: ["control-plane", "capture-writer"],
};

/** One way to break an engine's settings, and the start of the one line that must say so. */
interface Breakage {
  engine: Engine;
  what: "missing secret file" | "wrong CA" | "wrong password";
  /** Settings over the deployment's (good) ones; a wrong secret goes in a file, as the good one did. */
  env(wrongSecret: string, dir: string): Promise<Record<string, string>>;
  line: RegExp;
}

const missing = (name: string) => async () => ({ [`${name}_FILE`]: "/run/secrets/absent/secret" });
const wrongCa = (setting: string) => async () => ({ [setting]: caFile("wrong-ca.crt") });
const wrongIn = (name: string, value?: (wrong: string) => string) => (wrong: string, dir: string) =>
  secretFiles(dir, { [name]: value ? value(wrong) : wrong });

function breakages(d: SplitDeployment<SecureEngines>): Breakage[] {
  /** The deployment's database URL (its password inside) with another password. */
  const withPassword = (wrong: string) => {
    const url = new URL(readFileSync(d.env.GATEWAY_DATABASE_URL_FILE!, "utf8").trim());
    url.password = wrong;
    return url.toString();
  };
  return [
    {
      engine: "kafka",
      what: "missing secret file",
      env: missing("GATEWAY_KAFKA_SASL_PASSWORD"),
      line: /^ {2}GATEWAY_KAFKA_SASL_PASSWORD_FILE: cannot read \S+ \(ENOENT\)$/,
    },
    {
      engine: "kafka",
      what: "wrong CA",
      env: wrongCa("GATEWAY_KAFKA_CA_FILE"),
      line: /^GATEWAY_KAFKA_CA_FILE: the brokers' certificate is not trusted \(\w+\)$/,
    },
    {
      engine: "kafka",
      what: "wrong password",
      env: wrongIn("GATEWAY_KAFKA_SASL_PASSWORD"),
      line: /^GATEWAY_KAFKA_SASL_PASSWORD: the brokers refused the login of gateway \(scram-sha-512\)$/,
    },
    {
      engine: "redis",
      what: "missing secret file",
      env: missing("GATEWAY_REDIS_PASSWORD"),
      line: /^ {2}GATEWAY_REDIS_PASSWORD_FILE: cannot read \S+ \(ENOENT\)$/,
    },
    {
      engine: "redis",
      what: "wrong CA",
      env: wrongCa("GATEWAY_REDIS_CA_FILE"),
      line: /^GATEWAY_REDIS_CA_FILE: the sentinels' certificate is not trusted \(\w+\)$/,
    },
    {
      engine: "redis",
      what: "wrong password",
      env: wrongIn("GATEWAY_REDIS_PASSWORD"),
      line: /^GATEWAY_REDIS_PASSWORD: Redis refused the login of gateway \(WRONGPASS\)$/,
    },
    {
      engine: "postgres",
      what: "missing secret file",
      env: missing("GATEWAY_DATABASE_URL"),
      line: /^ {2}GATEWAY_DATABASE_URL_FILE: cannot read \S+ \(ENOENT\)$/,
    },
    {
      engine: "postgres",
      what: "wrong CA",
      env: wrongCa("GATEWAY_DATABASE_CA_FILE"),
      line: /^GATEWAY_DATABASE_CA_FILE: PostgreSQL's certificate is not trusted \(\w+\)$/,
    },
    {
      engine: "postgres",
      what: "wrong password",
      env: wrongIn("GATEWAY_DATABASE_URL", withPassword),
      line: /^GATEWAY_DATABASE_URL: PostgreSQL refused the login \(SQLSTATE 28P01\)$/,
    },
    {
      engine: "s3",
      what: "missing secret file",
      env: missing("GATEWAY_S3_SECRET_KEY"),
      line: /^ {2}GATEWAY_S3_SECRET_KEY_FILE: cannot read \S+ \(ENOENT\)$/,
    },
    {
      engine: "s3",
      what: "wrong CA",
      env: wrongCa("GATEWAY_S3_CA_FILE"),
      line: /^GATEWAY_S3_CA_FILE: the object store's certificate is not trusted \(\w+\)$/,
    },
    {
      engine: "s3",
      what: "wrong password",
      env: wrongIn("GATEWAY_S3_SECRET_KEY"),
      line: /^GATEWAY_S3_SECRET_KEY: the object store refused the credentials /,
    },
  ];
}

/** How an app's start went: its exit code, its two outputs, how long it took. */
async function startOnce(app: App, env: Record<string, string>) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["--experimental-strip-types", `${repoRoot}apps/${app}/src/main.ts`],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // a start that is not refused would serve on: it is stopped, and fails the test by its code
  const guard = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(guard);
  return { code, stdout, stderr, ms: performance.now() - started };
}

/**
 * Each engine broken three ways (its secret file missing, a CA of another throwaway CA, a wrong
 * password in the secret file), for every app that opens it: the app exits 1 within a few
 * seconds with one line naming the setting, no stack trace, and no secret, wrong or right.
 */
export function startFailureScenarios(get: () => SplitDeployment<SecureEngines>): void {
  it("refuses to start on a missing secret file, a wrong CA or a wrong password, each with one line", async () => {
    const d = get();
    const work = await mkdtemp(join(tmpdir(), "gw-secure-refused-"));
    const cases = breakages(d).flatMap((b) => appsOf[b.engine].map((app) => ({ ...b, app })));
    const took: Record<Breakage["what"], number[]> = {
      "missing secret file": [],
      "wrong CA": [],
      "wrong password": [],
    };
    try {
      // three starts at a time: each is a Node process loading an app on 2 shared cores
      for (let i = 0; i < cases.length; i += 3) {
        await Promise.all(
          cases.slice(i, i + 3).map(async (c, j) => {
            const dir = join(work, String(i + j));
            const wrong = `wrong-${c.engine}-secret-${i + j}-0123456789`;
            const env = {
              ...d.env,
              PORT: "0",
              GATEWAY_SPOOL_DIR: join(dir, "spool"),
              ...(await c.env(wrong, join(dir, "secrets"))),
            };
            const run = await startOnce(c.app, env);
            const label = `${c.app}, ${c.engine} ${c.what}`;
            const all = run.stdout + run.stderr;
            expect(run.code, `${label}: exit code\n${all.slice(-2_000)}`).toBe(1);
            // the configuration's problems come under one heading; a refusal is its line alone
            const lines = run.stderr.split("\n").filter((l) => l !== "" && l !== "Invalid configuration:");
            expect(lines, label).toHaveLength(1);
            expect(lines[0], label).toMatch(c.line);
            expect(all, label).not.toMatch(/^\s+at /m);
            for (const secret of [...secretsOf(d), wrong]) expect(all.includes(secret), label).toBe(false);
            took[c.what].push(run.ms);
          }),
        );
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    // bounded: each engine check at start gives up within seconds (the figure printed is the
    // measure; this only catches a start that waits on an engine for good)
    const all = Object.values(took).flat();
    expect(Math.max(...all)).toBeLessThan(60_000);
    // a missing file stops the start before any engine is asked: its time is Node loading the app
    const median = (ms: number[]) => Math.round(ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!);
    const medians = Object.entries(took).map(([what, ms]) => `${what} ${median(ms)} ms`);
    console.log(
      `secure: ${cases.length} starts refused (4 engines x missing file, wrong CA, wrong password, each app that opens it), ` +
        `each with one line and no secret; process start to exit, median: ${medians.join(", ")}; slowest ${Math.round(Math.max(...all))} ms`,
    );
  }, 600_000);
}
