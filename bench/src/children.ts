/** Child processes of the benchmark: started until ready, logged to files, always stopped. */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export interface Child {
  name: string;
  pid: number;
  /** Every stdout line seen up to and including the one that made the child ready. */
  lines: string[];
  process: ChildProcess;
  logPath: string;
  /** How it ended, once it has: "code 1", "SIGKILL". */
  exit: string | null;
}

export interface StartOptions {
  name: string;
  /** The program to run: this same node binary unless said otherwise. */
  command?: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logPath: string;
  /**
   * Called with all stdout lines so far after each new one, true once the child is ready; or a URL
   * polled until it answers, for a child that says nothing on stdout when it is.
   */
  ready: ((lines: string[]) => boolean) | { url: string };
  /** Run it on this core alone, all its threads (taskset); any core when unset. */
  core?: number;
  timeoutMs: number;
}

// Newest last, so stopping goes in reverse: the gateway before the upstream it drains into.
const running: Child[] = [];

/** Answers once `url` gives any HTTP response, or once `stop()` says to give up. */
async function pollUntilAnswered(url: string, stop: () => boolean): Promise<void> {
  while (!stop()) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await sleep(200);
    }
  }
}

export function startChild(options: StartOptions): Promise<Child> {
  const command = options.command ?? process.execPath;
  // taskset execs the command, so the pid is the child's own.
  const [file, args] =
    options.core === undefined
      ? [command, options.args]
      : ["taskset", ["-c", String(options.core), command, ...options.args]];
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = createWriteStream(options.logPath);
  child.stderr.pipe(log);
  if (child.pid === undefined) return Promise.reject(new Error(`${options.name} did not start`));
  const started: Child = {
    name: options.name,
    pid: child.pid,
    lines: [],
    process: child,
    logPath: options.logPath,
    exit: null,
  };
  child.once("exit", (code, signal) => {
    started.exit = signal ?? `code ${code}`;
  });
  running.push(started);

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(started);
    };
    const timer = setTimeout(
      () =>
        finish(new Error(`${options.name} not ready after ${options.timeoutMs} ms; see ${options.logPath}`)),
      options.timeoutMs,
    );
    const { ready } = options;
    // Keep reading stdout after ready: a child blocked on a full pipe would stall the benchmark.
    createInterface({ input: child.stdout }).on("line", (line) => {
      log.write(`${line}\n`);
      if (settled) return;
      started.lines.push(line);
      if (typeof ready === "function" && ready(started.lines)) finish(null);
    });
    if (typeof ready !== "function") pollUntilAnswered(ready.url, () => settled).then(() => finish(null));
    child.once("exit", (code, signal) =>
      finish(new Error(`${options.name} exited (${signal ?? code}) before ready; see ${options.logPath}`)),
    );
  });
}

/** Throws, with the tail of its log, if any child has died: a crash must not pass for a slow run. */
export async function assertAlive(during: string): Promise<void> {
  const dead = running.find((child) => child.exit !== null);
  if (!dead) return;
  // Its last stderr may still be on its way through the pipe into the log file.
  await sleep(300);
  const tail = readFileSync(dead.logPath, "utf8").trimEnd().split("\n").slice(-25).join("\n");
  throw new Error(`${dead.name} exited (${dead.exit}) during ${during}; end of ${dead.logPath}:\n${tail}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGTERM one child, SIGKILL it if it has not exited within the grace period. */
export async function stopChild(child: Child, graceMs: number): Promise<void> {
  const at = running.indexOf(child);
  if (at !== -1) running.splice(at, 1);
  const gone = exited(child.process);
  child.process.kill("SIGTERM");
  // a child the bench had paused (SIGSTOP) takes the SIGTERM only once it runs again
  child.process.kill("SIGCONT");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), graceMs);
  await gone;
  clearTimeout(timer);
}

/** SIGTERM each child (newest first), SIGKILL whatever has not exited within the grace period. */
export async function stopChildren(graceMs: number): Promise<void> {
  while (running.length > 0) await stopChild(running.at(-1)!, graceMs);
}

// Last resort when the benchmark dies without reaching its cleanup: no orphans left holding ports.
process.once("exit", () => {
  for (const { process: child } of running) child.kill("SIGKILL");
});
