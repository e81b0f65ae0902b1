import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
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
 * What to run: a script of the source tree (`apps/<app>/src/main.ts`), or an app's deploy folder
 * as its image holds it, run as `node src/main.ts` from the folder with nothing but `node` on
 * PATH (`nodeDir` holds only it).
 */
export type AppEntry = string | { deployFolder: string; nodeDir: string };

/**
 * Starts `node <script>` as a user would (env only, no shared memory with the test) and waits
 * until its output matches `ready`; the match is returned with the process.
 */
export async function startApp(
  name: string,
  script: AppEntry,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 60_000,
  /** The process's `ulimit -n`, for the tests that exhaust it (source tree only). */
  fdLimit?: number,
): Promise<{ app: AppProcess; match: RegExpExecArray }> {
  const launch = (): { command: string; args: string[]; cwd: string; path: string } => {
    if (typeof script !== "string")
      return {
        command: join(script.nodeDir, "node"),
        args: ["src/main.ts"],
        cwd: script.deployFolder,
        path: script.nodeDir,
      };
    const node = [process.execPath, "--experimental-strip-types", `${repoRoot}${script}`];
    const path = process.env.PATH ?? "";
    if (!fdLimit) return { command: node[0]!, args: node.slice(1), cwd: repoRoot, path };
    return {
      command: "bash",
      args: ["-c", `ulimit -n ${fdLimit} && exec "$@"`, "bash", ...node],
      cwd: repoRoot,
      path,
    };
  };
  const { command, args, cwd, path } = launch();
  const child = spawn(command, args, { env: { PATH: path, ...env }, cwd, stdio: ["ignore", "pipe", "pipe"] });
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

/** Runs `infra/<engine>.sh <command> [args]` with extra env; resolves with its stdout. */
export async function infra(
  engine: string,
  command: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<string> {
  const { stdout } = await run("bash", [`${repoRoot}infra/${engine}.sh`, command, ...args], {
    env: { ...process.env, ...env },
    timeout: 180_000,
  });
  return stdout.trim();
}
