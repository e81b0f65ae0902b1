import { Worker } from "node:worker_threads";
import type { Reply, Request, WireError } from "./protocol.ts";

type QueryOptions = { rowMode?: "array" | "object" };

/** The part of PGlite's client that drizzle's PGlite driver and the migrator use. */
export interface RemotePglite {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(fn: (tx: RemoteTransaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  waitReady: Promise<void>;
}

interface RemoteTransaction {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
  rollback(): Promise<void>;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };
type Ask = Request extends infer R ? (R extends Request ? Omit<R, "id"> : never) : never;

/**
 * PGlite on a thread of its own, behind the same interface: the thread that serves traffic
 * builds queries and hands them over, and never spends its time inside the database's
 * WebAssembly. One client per data directory, like PGlite itself.
 */
export function startPgliteThread(dataDir: string | null): RemotePglite {
  const worker = new Worker(new URL("./worker.ts", import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failed: Error | null = null;

  const waitReady = new Promise<void>((ready, fail) => {
    worker.once("message", () => ready());
    worker.once("error", fail);
  });
  worker.on("message", (message: Reply | { ready: true }) => {
    if (!("id" in message)) return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.value);
    else waiter?.reject(toError(message.error));
  });
  worker.on("error", (error) => {
    failed = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });

  function ask(request: Ask): Promise<unknown> {
    if (failed) return Promise.reject(failed);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  const query =
    (tx: number | null) =>
    (sql: string, params: unknown[] = [], options: QueryOptions = {}) =>
      ask({ op: "query", tx, sql, params, rowMode: options.rowMode ?? "object" });
  const exec = (tx: number | null) => (sql: string) => ask({ op: "exec", tx, sql });

  return {
    waitReady,
    query: query(null),
    exec: exec(null),
    async transaction(fn) {
      const tx = (await ask({ op: "begin" })) as number;
      try {
        const result = await fn({
          query: query(tx),
          exec: exec(tx),
          rollback: async () => {
            throw new Error("roll back by throwing from the transaction");
          },
        });
        await ask({ op: "end", tx, commit: true });
        return result;
      } catch (error) {
        await ask({ op: "end", tx, commit: false }).catch(() => {});
        throw error;
      }
    },
    async close() {
      await ask({ op: "close" });
      await worker.terminate();
    },
  };
}

/** The worker's error as an Error again, with its `code` and the other fields callers read. */
function toError(wire: WireError): Error {
  return Object.assign(new Error(wire.message), wire.fields);
}
