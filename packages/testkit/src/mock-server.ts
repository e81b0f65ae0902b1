import http from "node:http";
import { deliver } from "./deliver.ts";
import { type Faults, parseFaults } from "./faults.ts";
import type { Reply } from "./reply.ts";
import type { MockProvider, MockProviderOptions, RecordedRequest } from "./types.ts";

export interface MockRequest {
  method: string;
  /** Path without the query string: providers route on the path only (e.g. `?beta=true`). */
  pathname: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  faults: Faults;
  /** Joins the body in the answer's seed: empty, or this request's number with `freshIds`. */
  seedSalt: string;
}

/** Builds the whole response for a request; transport faults are applied afterwards by `deliver`. */
export type Responder = (request: MockRequest) => Reply;

const EMPTY = Buffer.alloc(0);

async function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}

export async function startMockServer(
  respond: Responder,
  opts: MockProviderOptions = {},
): Promise<MockProvider> {
  const requests: RecordedRequest[] = [];
  const record = opts.record ?? true;
  let served = 0;

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const target = req.url ?? "/";
    const entry: RecordedRequest = {
      method: req.method ?? "GET",
      path: target,
      headers: req.headers,
      body: EMPTY,
      aborted: false,
    };
    // Recorded on arrival so that a client that disconnects mid-upload still shows up.
    if (record) requests.push(entry);

    const closed = new AbortController();
    let resetByMock = false;
    res.on("close", () => {
      if (res.writableFinished) return;
      closed.abort();
      if (!resetByMock) entry.aborted = true;
    });
    // Peers vanishing mid-write are expected here; they must not crash the process.
    res.on("error", () => {});

    const body = await readBody(req);
    if (body === undefined) return;
    entry.body = body;

    const query = target.indexOf("?");
    const faults: Faults = { ...parseFaults(req.headers), ...opts.forcedFaults };
    const reply = respond({
      method: entry.method,
      pathname: query === -1 ? target : target.slice(0, query),
      headers: req.headers,
      body,
      faults,
      seedSalt: opts.freshIds ? ` #${served++}` : "",
    });
    await deliver(
      {
        req,
        res,
        faults,
        signal: closed.signal,
        onSelfReset: () => {
          resetByMock = true;
        },
      },
      reply,
    );
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the mock: fail loudly in the response rather than hanging the client.
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`mock provider failure: ${String(error)}`);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("mock provider: no TCP address");

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    reset() {
      // In place, so that references to `requests` held by callers stay live.
      requests.length = 0;
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive and in-flight (delayed) connections would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
