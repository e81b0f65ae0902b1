import {
  Agent,
  request as httpRequest,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@gateway/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { type Drainable, drainableReadiness, stopServing } from "../src/drain.ts";
import { createHttpServer } from "../src/http-server.ts";
import { checkReadiness, readyAnswer } from "../src/probes.ts";

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** Log lines, kept to be read. */
function recordingLog() {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const put = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, fields });
  const log: Logger = { debug: put, info: put, warn: put, error: put };
  return { log, lines };
}

/**
 * A server whose `/readyz` answers from a drainable readiness, and whose `/slow` waits until the
 * test lets it answer; anything else answers 200 at once.
 */
async function appServer(log: Logger) {
  const ready = drainableReadiness(() => ({ ready: true }));
  const held: (() => void)[] = [];
  const listener: RequestListener = (req, res) => {
    if (req.url === "/readyz") {
      void checkReadiness(ready.readiness).then((r) => {
        const { status, body } = readyAnswer(r);
        res.writeHead(status).end(body.status);
      });
    } else if (req.url === "/slow") held.push(() => res.writeHead(200).end("slow done"));
    else res.writeHead(200).end("served");
  };
  const server = createHttpServer(listener, { log });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  /** One request on a connection of its own: its status and body, or the error that cut it. */
  const get = (path: string) =>
    new Promise<string>((resolve) => {
      // a connection of its own, kept alive after the answer unless the server closes it
      const req = httpRequest({
        port,
        host: "127.0.0.1",
        path,
        agent: new Agent({ keepAlive: true }),
      });
      req.on("response", (res: IncomingMessage) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve(`${res.statusCode} ${body}`));
        res.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      req.end();
    });
  /** Resolves once the server holds `count` slow requests. */
  const holding = async (count: number) => {
    while (held.length < count) await new Promise((r) => setImmediate(r));
  };
  return { server, ready, get, held, holding };
}

describe("stopServing", () => {
  it("turns /readyz to 503 first and serves on through the delay, then stops listening", async () => {
    const { log, lines } = recordingLog();
    const app = await appServer(log);
    expect(await app.get("/readyz")).toBe("200 ready");
    let stopped = false;
    const stop = stopServing(app.server, app.ready, { delayMs: 2_000, timeoutMs: 1_000 }, log).then(() => {
      stopped = true;
    });
    expect(await app.get("/readyz")).toBe("503 draining");
    expect(await app.get("/other")).toBe("200 served");
    expect(stopped).toBe(false);
    expect(lines.map((l) => l.message)).toEqual([
      "not ready; serving on until the load balancer has noticed",
    ]);
    await stop;
    expect(app.server.listening).toBe(false);
    expect(await app.get("/other")).toBe("ECONNREFUSED");
  });

  it("lets a request in flight finish before it resolves", async () => {
    const { log, lines } = recordingLog();
    const app = await appServer(log);
    const slow = app.get("/slow");
    await app.holding(1);
    let stopped = false;
    const stop = stopServing(app.server, app.ready, { delayMs: 0, timeoutMs: 30_000 }, log).then(() => {
      stopped = true;
    });
    // no new connection is taken, while the one in flight is still waited for
    expect(await app.get("/other")).toBe("ECONNREFUSED");
    expect(stopped).toBe(false);
    app.held[0]!();
    expect(await slow).toBe("200 slow done");
    await stop;
    expect(lines.filter((l) => l.message.startsWith("drain deadline"))).toEqual([]);
  });

  it("closes what is still in flight at the deadline, and says so", async () => {
    const { log, lines } = recordingLog();
    const app = await appServer(log);
    const slow = app.get("/slow");
    await app.holding(1);
    await stopServing(app.server, app.ready, { delayMs: 0, timeoutMs: 50 }, log);
    expect(await slow).toBe("ECONNRESET");
    expect(lines.at(-1)).toEqual({
      message: "drain deadline passed; closing remaining connections",
      fields: {},
    });
  });

  it("waits on the app's own count of requests in flight when it keeps one, and logs what it says", async () => {
    const { log, lines } = recordingLog();
    const app = await appServer(log);
    const slow = app.get("/slow");
    await app.holding(1);
    const asked: number[] = [];
    const counted: Drainable = {
      stopBeingReady: () => app.ready.stopBeingReady(),
      async drain(timeoutMs) {
        asked.push(timeoutMs);
        return { drained: false, inFlight: 1, calls: [{ request_id: "req_1" }] };
      },
    };
    await stopServing(app.server, counted, { delayMs: 0, timeoutMs: 1_234 }, log);
    expect(asked).toEqual([1_234]);
    expect(await app.get("/readyz")).toBe("ECONNREFUSED");
    expect(await slow).toBe("ECONNRESET");
    expect(lines.at(-1)).toEqual({
      message: "drain deadline passed; closing remaining connections",
      fields: { inFlight: 1, calls: [{ request_id: "req_1" }] },
    });
  });
});
