import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@gateway/contracts";

/** Parses the env with `parse`, or prints why it is invalid and exits 1. */
export function envOrExit<T>(parse: (source: Record<string, string | undefined>) => T): T {
  try {
    return parse(process.env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}

/**
 * A reason an app cannot start that one line says in full (an engine that refused its
 * certificate or its login, naming the setting to fix): `startOrExit` prints that line alone.
 */
export class StartRefusedError extends Error {}

/**
 * `start`'s value; a `StartRefusedError` prints its one line (never a stack, never a secret: the
 * message names the setting) and exits 1. Anything else goes up with its stack, as unexpected.
 */
export async function startOrExit<T>(start: Promise<T>): Promise<T> {
  try {
    return await start;
  } catch (error) {
    if (!(error instanceof StartRefusedError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/** Runs `stop` once on the first SIGTERM or SIGINT, then exits (1 when stopping failed). */
export function stopOnSignals(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error("shutdown failed", { error });
          process.exit(1);
        },
      );
    });
  }
}

/** Listens and resolves with the URL a client on this machine would use. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((ready, failed) => {
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      ready();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${bound}`;
}
