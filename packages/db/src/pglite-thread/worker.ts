import { parentPort, workerData } from "node:worker_threads";
import { PGlite, type Transaction, types } from "@electric-sql/pglite";
import { pgliteOptions } from "../pglite-options.ts";
import type { Reply, Request, WireError } from "./protocol.ts";

/**
 * The thread that owns the embedded database. PGlite runs Postgres compiled to WebAssembly on
 * whichever thread calls it; here that is not the thread serving traffic. Queries arrive as
 * messages and run in arrival order, as they would on one in-process PGlite.
 */
const port = parentPort!;
const db = new PGlite(workerData.dataDir ?? undefined, pgliteOptions);
await db.waitReady;

// The same parsers drizzle's PGlite driver asks for: dates, intervals and their arrays stay text.
const identity = (value: string) => value;
const parsers = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map(
    (oid) => [oid, identity],
  ),
);

interface OpenTransaction {
  tx: Transaction;
  end(commit: boolean): void;
}
const open = new Map<number, OpenTransaction>();
class RolledBack extends Error {}

function reply(message: Reply) {
  port.postMessage(message);
}

function wireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value;
  }
  return { message: error.message, fields };
}

async function run(request: Request): Promise<unknown> {
  switch (request.op) {
    case "query": {
      const target = request.tx === null ? db : open.get(request.tx)!.tx;
      const { rows, fields, affectedRows } = await target.query(request.sql, request.params, {
        rowMode: request.rowMode,
        parsers,
      });
      return { rows, fields, affectedRows };
    }
    case "exec": {
      const target = request.tx === null ? db : open.get(request.tx)!.tx;
      const results = await target.exec(request.sql, { parsers });
      return results.map(({ rows, fields, affectedRows }) => ({ rows, fields, affectedRows }));
    }
    case "begin": {
      // The transaction stays open (holding PGlite's lock) until the main thread ends it.
      const id = request.id;
      let ended!: Promise<void>;
      await new Promise<void>((started) => {
        ended = db
          .transaction(async (tx) => {
            const commit = await new Promise<boolean>((end) => {
              open.set(id, { tx, end });
              started();
            });
            if (!commit) throw new RolledBack();
          })
          .then(
            () => undefined,
            (error: unknown) => {
              if (!(error instanceof RolledBack)) throw error;
            },
          );
      });
      endings.set(id, ended);
      return id;
    }
    case "end": {
      open.get(request.tx)!.end(request.commit);
      open.delete(request.tx);
      const ended = endings.get(request.tx)!;
      endings.delete(request.tx);
      await ended;
      return null;
    }
    case "close":
      await db.close();
      return null;
  }
}
const endings = new Map<number, Promise<void>>();

port.on("message", (request: Request) => {
  run(request).then(
    (value) => reply({ id: request.id, ok: true, value }),
    (error: unknown) => reply({ id: request.id, ok: false, error: wireError(error) }),
  );
});
port.postMessage({ ready: true });
