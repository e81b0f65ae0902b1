import { createHash } from "node:crypto";
import { createServer, get, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ClientGoneError, endResponse, exchange, type ResponseBody } from "../src/upstream-exchange.ts";

const servers: Server[] = [];
const upstreamSockets: Socket[] = [];
afterEach(async () => {
  for (const socket of upstreamSockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});

function listen<T extends Server | ReturnType<typeof createTcpServer>>(server: T): Promise<number> {
  servers.push(server as Server);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

/** An upstream that answers a request with `script`, the exact bytes on the wire, as it writes them. */
async function rawUpstream(script: (socket: Socket) => void): Promise<string> {
  const port = await listen(
    createTcpServer((socket) => {
      upstreamSockets.push(socket);
      socket.on("error", () => {});
      socket.once("data", () => script(socket));
    }),
  );
  return `http://127.0.0.1:${port}`;
}

const sseHead = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
const httpChunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const lastChunk = "0\r\n\r\n";

/**
 * A server whose one response comes from `upstreamUrl` through `exchange`, with the body's hooks
 * `body` makes for it; what the exchange's promise came to.
 */
async function front(
  upstreamUrl: string,
  body: (res: ServerResponse) => ResponseBody,
  signal = new AbortController().signal,
) {
  const dispatcher = new Agent();
  let settle!: (outcome: Error | "done") => void;
  const outcome = new Promise<Error | "done">((resolve) => {
    settle = resolve;
  });
  const port = await listen(
    createServer((req, res) => {
      req.resume();
      exchange(
        dispatcher,
        { origin: upstreamUrl, path: "/", method: "GET" },
        {
          res,
          signal,
          start(status, headers) {
            const hooks = body(res);
            res.writeHead(status, { "content-type": headers["content-type"] ?? "application/octet-stream" });
            return hooks;
          },
        },
      ).then(
        () => settle("done"),
        (error: Error) => settle(error),
      );
    }),
  );
  return { url: `http://127.0.0.1:${port}/`, outcome };
}

/** The hooks of a body passed through as it comes, noting each delivery. */
function passThrough(res: ServerResponse, delivered: string[], finished: { count: number }): ResponseBody {
  return {
    deliver: (chunk) => {
      delivered.push(chunk.toString());
      return chunk;
    },
    completes: () => false,
    finish: () => {
      finished.count++;
      return null;
    },
    endWith: (last, callback) => void endResponse(res, last, callback),
  };
}

describe("the upstream exchange", () => {
  it("hands on what came in one read of the upstream in one piece, and what comes later as it comes", async () => {
    const upstream = await rawUpstream((socket) => {
      // one read: the head and three chunks of a chunked body, which the parser hands over one by one
      socket.write(sseHead + httpChunk("data: 1\n\n") + httpChunk("data: 2\n\n") + httpChunk("data: 3\n\n"));
      setTimeout(() => {
        socket.write(httpChunk("data: 4\n\n"));
        setTimeout(() => socket.end(httpChunk("data: 5\n\n") + lastChunk), 10);
      }, 10);
    });
    const delivered: string[] = [];
    const finished = { count: 0 };
    const { url, outcome } = await front(upstream, (res) => passThrough(res, delivered, finished));
    const text = await (await fetch(url)).text();
    expect(text).toBe("data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n");
    expect(delivered).toEqual(["data: 1\n\ndata: 2\n\ndata: 3\n\n", "data: 4\n\n", "data: 5\n\n"]);
    expect(finished.count).toBe(1);
    expect(await outcome).toBe("done");
  });

  it("hands on a whole body that came with the head in one read in one piece, then ends", async () => {
    const upstream = await rawUpstream((socket) =>
      socket.end(sseHead + httpChunk("data: 1\n\n") + httpChunk("data: [DONE]\n\n") + lastChunk),
    );
    const delivered: string[] = [];
    const finished = { count: 0 };
    const { url, outcome } = await front(upstream, (res) => passThrough(res, delivered, finished));
    expect(await (await fetch(url)).text()).toBe("data: 1\n\ndata: [DONE]\n\n");
    expect(delivered).toEqual(["data: 1\n\ndata: [DONE]\n\n"]);
    expect(finished.count).toBe(1);
    expect(await outcome).toBe("done");
  });

  it("settles when the response's end calls back before it returns", async () => {
    // the answer completes at the terminal event; the upstream's body ends in a later read
    const upstream = await rawUpstream((socket) => {
      socket.write(sseHead + httpChunk("data: [DONE]\n\n"));
      setTimeout(() => socket.end(lastChunk), 20);
    });
    const { url, outcome } = await front(upstream, (res) => ({
      deliver: (chunk) => chunk,
      completes: () => true,
      finish: () => null,
      // as `endResponse` does on a response that has already finished or closed
      endWith: (last, callback) => {
        res.end(last);
        callback();
        return undefined;
      },
    }));
    expect(await (await fetch(url)).text()).toBe("data: [DONE]\n\n");
    expect(await outcome).toBe("done");
  });

  it("drops what the upstream sends after the answer is complete instead of holding it while the end waits", async () => {
    // an upstream that goes on sending after its terminal event (from the moment the response's
    // end begins to wait), far more than that wait should ever hold; the end (the journal's write,
    // in the gateway) waits until 64 MiB went out
    const enough = 64 * 1024 * 1024;
    let flood!: () => Promise<void>;
    const upstream = await rawUpstream((socket) => {
      socket.write(sseHead + httpChunk("data: [DONE]\n\n"));
      flood = () =>
        new Promise((wentOut) => {
          const junk = httpChunk(`: ${"x".repeat(64 * 1024)}\n\n`);
          let sent = 0;
          const more = () => {
            while (sent < enough && socket.write(junk)) sent += junk.length;
            if (sent >= enough) wentOut();
          };
          socket.on("drain", more);
          more();
        });
    });
    const gc = collector();
    let held = Number.NaN;
    const { url } = await front(upstream, (res) => ({
      deliver: (chunk) => chunk,
      completes: () => true,
      finish: () => null,
      endWith: async (last, callback) => {
        gc();
        const before = process.memoryUsage().arrayBuffers;
        await flood();
        gc();
        held = process.memoryUsage().arrayBuffers - before;
        endResponse(res, last, callback);
      },
    }));
    expect(await (await fetch(url)).text()).toBe("data: [DONE]\n\n");
    // the kernel's socket buffers hold a few MiB of what went out; the rest reached the exchange
    expect(held).toBeLessThan(16 * 1024 * 1024);
  });

  it("passes a large body to a client that reads slowly whole and in order", async () => {
    // 4 MiB in 64 KiB chunks, far past what the sockets between hold: the upstream is paused
    // while the client does not read, and resumed when it does
    const blocks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const sent = createHash("sha256").update(Buffer.concat(blocks)).digest("hex");
    const upstream = await rawUpstream((socket) => {
      socket.write(
        "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 4194304\r\n\r\n",
      );
      for (const block of blocks) socket.write(block);
      socket.end();
    });
    const finished = { count: 0 };
    const { url, outcome } = await front(upstream, (res) => passThrough(res, [], finished));
    const body = await new Promise<Buffer>((resolve, reject) => {
      get(url, (response) => {
        const parts: Buffer[] = [];
        response.pause();
        setTimeout(() => response.resume(), 300);
        response.on("data", (part: Buffer) => parts.push(part));
        response.on("end", () => resolve(Buffer.concat(parts)));
      }).on("error", reject);
    });
    expect(body.length).toBe(4 * 1024 * 1024);
    expect(createHash("sha256").update(body).digest("hex")).toBe(sent);
    expect(await outcome).toBe("done");
  });

  it("fails, with the reason, when the client hangs up while the response waits for its drain", async () => {
    // an upstream that never stops: only the client's hang-up can end the wait
    const upstream = await rawUpstream((socket) => {
      socket.write(sseHead);
      const frame = httpChunk(`data: ${"x".repeat(60_000)}\n\n`);
      const more = () => {
        while (socket.write(frame));
      };
      socket.on("drain", more);
      more();
    });
    const { url, outcome } = await front(upstream, (res) => passThrough(res, [], { count: 0 }));
    const client = connect(Number(new URL(url).port), "127.0.0.1", () => {
      client.pause();
      client.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    });
    client.on("error", () => {});
    setTimeout(() => client.destroy(), 300);
    expect(await outcome).toBeInstanceOf(ClientGoneError);
  });

  it("fails with the signal's reason when it aborts, and stops the upstream's request", async () => {
    const upstreamClosed = new Promise<void>((closed) => {
      void rawUpstream((socket) => {
        socket.on("close", () => closed());
        socket.write(sseHead + httpChunk("data: 1\n\n"));
      }).then(async (upstream) => {
        const abort = new AbortController();
        const { url, outcome } = await front(
          upstream,
          (res) => passThrough(res, [], { count: 0 }),
          abort.signal,
        );
        const response = await fetch(url);
        const reader = response.body!.getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 1\n\n");
        const reason = new Error("the caller left");
        abort.abort(reason);
        expect(await outcome).toBe(reason);
      });
    });
    await upstreamClosed;
  });

  it("fails with what the head's hook threw (the gateway's refusal of a 5xx it can fall back from)", async () => {
    const upstream = await rawUpstream((socket) =>
      socket.end("HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n"),
    );
    const refused = new Error("a server error, to fall back from");
    const { url, outcome } = await front(upstream, () => {
      throw refused;
    });
    void fetch(url).catch(() => {});
    expect(await outcome).toBe(refused);
  });
});

describe("endResponse", () => {
  it("settles the end of a response whose client hangs up before the last bytes are flushed", async () => {
    // Node 24 calls back end() on a close too; the end does not rely on every version doing so
    const ended = await withBackedUpResponse(
      (res) =>
        new Promise<string>((resolve) =>
          endResponse(res, Buffer.from("data: [DONE]\n\n"), () => resolve("settled")),
        ),
    );
    expect(ended).toBe("settled");
  });
});

/** A full garbage collection, on demand: what is still held after it is held for real. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/**
 * A real server and a client that reads nothing: the response's writes back up into the socket
 * until `res.write` returns false. `act` runs then, and the client hangs up soon after.
 */
function withBackedUpResponse<T>(act: (res: ServerResponse) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      // Fill the socket until it stays full: the kernel's buffers grow for a while, so a write
      // that backs up may still drain; once no drain comes for 200 ms, only the client can move it.
      const fill = () => {
        while (res.write(chunk));
        const drained = () => {
          clearTimeout(stuck);
          fill();
        };
        const stuck = setTimeout(() => {
          res.off("drain", drained);
          act(res).then(resolve, reject);
          setTimeout(() => client.destroy(), 50);
        }, 200);
        res.once("drain", drained);
      };
      setImmediate(fill);
    });
    let client: ReturnType<typeof connect>;
    void listen(server).then((port) => {
      client = connect(port, "127.0.0.1", () => {
        client.pause();
        client.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
      });
      client.on("error", () => {});
    });
  });
}
