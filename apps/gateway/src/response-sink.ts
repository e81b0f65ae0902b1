import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";

/** How the upstream's body becomes the client's response. */
export interface ResponseBody {
  /** The bytes of `chunk` the client gets now (null: none, or none yet). */
  deliver(chunk: Buffer): Buffer | null;
  /** Whether what `deliver` just returned completes the client's answer: the response ends with it. */
  completes(): boolean;
  /** The upstream's body ended: the bytes the response ends with. */
  finish(): Buffer | null;
  /** Ends the response with `last`; `callback` once it has finished or closed. */
  endWith(last: Buffer | null, callback: () => void): Promise<void> | undefined;
}

/**
 * A writable that passes each chunk to the client as it comes, honouring the client's backpressure.
 * A response can end before the upstream's body does (at a stream's terminal event); the rest of
 * the body is then read and dropped, so the upstream's connection can be used again.
 * Every wait on the response also ends when it closes: Node emits no `drain` on a socket the client
 * has closed (and calling back `end` there is not something every version does), and a wait that
 * never settles keeps the call in flight until the drain deadline, and the process with it.
 */
export function responseSink(res: ServerResponse, body: ResponseBody): Writable {
  // (a throw fails the call, not the process: the first chunks are handed on from a tick of their own)
  const pass = (chunk: Buffer, callback: (error?: Error | null) => void) => {
    try {
      if (res.writableEnded) return callback();
      const out = body.deliver(chunk);
      if (res.destroyed) return callback(new ClientGoneError());
      if (body.completes()) return void body.endWith(out, () => callback())?.catch(callback);
      if (!out || res.write(out)) return callback();
      settleOnce(res, "drain", () => callback(res.destroyed ? new ClientGoneError() : undefined));
    } catch (error) {
      callback(error as Error);
    }
  };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pass(chunk, callback);
    },
    writev(chunks, callback) {
      pass(Buffer.concat(chunks.map(({ chunk }) => chunk as Buffer)), callback);
    },
    final(callback) {
      if (res.writableEnded) return callback();
      body.endWith(body.finish(), () => callback())?.catch(callback);
    },
  });
  // What came with the response's head, in the same read (a JSON answer, often a whole short
  // stream: the parser hands each chunk of a chunked body over on its own), is gathered until
  // this tick ends and handed on in one piece: one delivery, one usage read, one response write,
  // not one of each per chunk (-10 to -17 % CPU for the mock's 8-frame stream, bench/RESULTS.md).
  // Nothing waits for it: the tick ends before any further read. Later chunks pass as they come,
  // but for those that queue while an earlier one waits (a client slow to read, the journal's
  // write at a stream's end), which Node hands to `writev` together too. Bytes that follow a
  // stream's terminal event in one piece with it reach the client and the capture alike.
  sink.cork();
  process.nextTick(() => sink.uncork());
  return sink;
}

export class ClientGoneError extends Error {
  constructor() {
    super("the client closed the connection");
  }
}

/** Ends the response; `callback` runs once it has finished or closed, whichever comes first. */
export function endResponse(res: ServerResponse, last: Buffer | string | null, callback?: () => void) {
  if (callback) onFinishOrClose(res, callback);
  // (ended already: at a stream's terminal event, with the upstream's body still to come)
  if (res.destroyed || res.writableEnded) return;
  if (last) res.end(last);
  else res.end();
}

function onFinishOrClose(res: ServerResponse, then: () => void) {
  if (res.writableFinished || res.destroyed) return void then();
  settleOnce(res, "finish", then);
}

/** Runs `then` once, on `event` or on `close`, whichever comes first. */
function settleOnce(res: ServerResponse, event: "drain" | "finish", then: () => void) {
  const done = () => {
    res.off(event, done);
    res.off("close", done);
    then();
  };
  res.on(event, done);
  res.on("close", done);
}
