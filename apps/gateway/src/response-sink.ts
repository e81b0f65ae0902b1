import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";

/**
 * A writable that passes each chunk to the client as it comes, honouring the client's backpressure.
 * Every wait on the response also ends when it closes: Node emits no `drain` on a socket the client
 * has closed (and calling back `end` there is not something every version does), and a wait that
 * never settles keeps the call in flight until the drain deadline, and the process with it.
 */
export function responseSink(
  res: ServerResponse,
  deliver: (chunk: Buffer) => Buffer | null,
  finish: () => Buffer | null,
  endWith: (last: Buffer | null, callback: () => void) => Promise<void> | undefined,
): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const out = deliver(chunk);
      if (res.destroyed) return callback(new ClientGoneError());
      if (!out || res.write(out)) return callback();
      settleOnce(res, "drain", () => callback(res.destroyed ? new ClientGoneError() : undefined));
    },
    final(callback) {
      endWith(finish(), () => callback())?.catch(callback);
    },
  });
}

export class ClientGoneError extends Error {
  constructor() {
    super("the client closed the connection");
  }
}

/** Ends the response; `callback` runs once it has finished or closed, whichever comes first. */
export function endResponse(res: ServerResponse, last: Buffer | string | null, callback?: () => void) {
  if (callback) onFinishOrClose(res, callback);
  if (res.destroyed) return;
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
