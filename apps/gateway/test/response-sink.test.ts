import { createServer, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ClientGoneError, endResponse, responseSink } from "../src/response-sink.ts";

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
          act(res)
            .then(resolve, reject)
            .finally(() => server.close());
          setTimeout(() => client.destroy(), 50);
        }, 200);
        res.once("drain", drained);
      };
      setImmediate(fill);
    });
    let client: ReturnType<typeof connect>;
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      client = connect(port, "127.0.0.1", () => {
        client.pause();
        client.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
      });
      client.on("error", () => {});
    });
  });
}

describe("the response sink", () => {
  it("settles the end of a response whose client hangs up before the last bytes are flushed", async () => {
    // Node 24 calls back end() on a close too; the sink does not rely on every version doing so
    const ended = await withBackedUpResponse(
      (res) =>
        new Promise<string>((resolve) =>
          endResponse(res, Buffer.from("data: [DONE]\n\n"), () => resolve("settled")),
        ),
    );
    expect(ended).toBe("settled");
  });

  it("settles a write waiting on drain when the client hangs up, with the reason", async () => {
    // nor does it emit drain on a closed socket
    const error = await withBackedUpResponse(
      (res) =>
        new Promise<Error | null | undefined>((resolve) => {
          const sink = responseSink(res, {
            deliver: (chunk) => chunk,
            completes: () => false,
            finish: () => null,
            endWith: (_last, callback) => void callback(),
          });
          // the sink reports the hang-up as its error (undici's stream() handles it in the gateway)
          sink.on("error", () => {});
          sink.write(Buffer.alloc(64 * 1024, "y"), (e) => resolve(e));
        }),
    );
    expect(error).toBeInstanceOf(ClientGoneError);
  });

  it("hands on what came in the tick of its creation in one piece, and what comes later as it comes", async () => {
    const served = await throughSink((sink) => {
      // as undici's parser hands over a chunked body that arrived in one read: a chunk at a time
      for (const frame of ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n"]) sink.write(Buffer.from(frame));
      setTimeout(() => {
        sink.write(Buffer.from("data: 4\n\n"));
        setTimeout(() => sink.end(Buffer.from("data: 5\n\n")), 10);
      }, 10);
    });
    expect(served.text).toBe("data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\ndata: 5\n\n");
    expect(served.delivered).toEqual(["data: 1\n\ndata: 2\n\ndata: 3\n\n", "data: 4\n\n", "data: 5\n\n"]);
  });

  it("hands on a whole body that came with the head and ended in the same tick in one piece, then ends", async () => {
    const served = await throughSink((sink) => {
      // as undici's onComplete ends it when the body's end came in the same read
      sink.write(Buffer.from("data: 1\n\n"));
      sink.end(Buffer.from("data: [DONE]\n\n"));
    });
    expect(served.text).toBe("data: 1\n\ndata: [DONE]\n\n");
    expect(served.delivered).toEqual(["data: 1\n\ndata: [DONE]\n\n"]);
    expect(served.finished).toBe(1);
  });
});

/**
 * A real server whose response is written through a sink that `act` feeds (from the tick the sink
 * is made in, as undici's factory is called); what the client read, and what the sink delivered.
 */
async function throughSink(act: (sink: Writable) => void) {
  const delivered: string[] = [];
  let finished = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const sink = responseSink(res, {
      deliver: (chunk) => {
        delivered.push(chunk.toString());
        return chunk;
      },
      completes: () => false,
      finish: () => {
        finished++;
        return null;
      },
      endWith: (last, callback) => void endResponse(res, last, callback),
    });
    act(sink);
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  try {
    const { port } = server.address() as { port: number };
    const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    return { text, delivered, finished };
  } finally {
    server.close();
  }
}
