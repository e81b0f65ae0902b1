import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const run = promisify(execFile);

export interface AppProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM (or `signal`) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `node <script>` as a user would (env only, no shared memory with the test) and waits
 * until its output matches `ready`; the match is returned with the process.
 */
export async function startApp(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
  /** The process's `ulimit -n`, for the tests that exhaust it. */
  fdLimit?: number,
): Promise<{ app: AppProcess; match: RegExpExecArray }> {
  const node = [process.execPath, "--experimental-strip-types", `${repoRoot}${script}`];
  const [command, args] = fdLimit
    ? ["bash", ["-c", `ulimit -n ${fdLimit} && exec "$@"`, "bash", ...node]]
    : [node[0]!, node.slice(1)];
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const app: AppProcess = {
    name,
    child,
    output: () => output,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = ready.exec(output);
    if (match) return { app, match };
    if (child.exitCode !== null || Date.now() > deadline) {
      await app.stop("SIGKILL");
      throw new Error(`${name} did not start:\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `infra/<engine>.sh <command>` with extra env; resolves with its stdout. */
export async function infra(
  engine: string,
  command: string,
  env: Record<string, string> = {},
): Promise<string> {
  const { stdout } = await run("bash", [`${repoRoot}infra/${engine}.sh`, command], {
    env: { ...process.env, ...env },
    timeout: 180_000,
  });
  return stdout.trim();
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}
