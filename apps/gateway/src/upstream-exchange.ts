import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";

/** Where an upstream's response goes: the client's response, and how its body reaches it. */
export interface Downstream {
  readonly res: ServerResponse;
  /** Aborts the exchange (the caller went away). */
  readonly signal: AbortSignal;
  /** Given the upstream's status and headers (a throw there fails the exchange): how the body reaches the client. */
  start(statusCode: number, headers: IncomingHttpHeaders): ResponseBody;
}

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
 * Sends one request upstream and passes its response's body to the client as it comes, through
 * undici's dispatch handler API: the chunks go from undici's parser to `body` with no stream in
 * between (`stream()` would put two there, its handler's and a Writable of ours).
 * `downstream.start` is given the upstream's status and headers and returns how the body reaches
 * the client (one object per call: no closure made for it).
 * Resolves once the upstream's body has ended and the response has ended with it (or before it,
 * at a stream's terminal event); rejects when the upstream fails, the client goes, or
 * `downstream.signal` aborts while the upstream's body is still coming (a request still waiting
 * for a connection is aborted once it has one, or fails to get one, as with `stream()`).
 */
export function exchange(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  downstream: Downstream,
): Promise<void> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(request, new UpstreamExchange(downstream, resolve, reject));
  });
}

/**
 * The chunks of one read of the upstream's socket (the parser hands a chunked body over a chunk
 * at a time; a JSON answer, or a whole short stream, often comes in one read with the head) are
 * gathered until the tick ends and handed on in one piece: one delivery, one usage read, one
 * response write, not one of each per chunk (-10 to -17 % CPU for the mock's 8-frame stream,
 * bench/RESULTS.md). Nothing waits for it: the tick ends before any further read.
 * While the client reads slowly the upstream's socket is paused (from the next chunk undici
 * parses), and what came meanwhile is handed on after the client's drain. A response can end
 * before the upstream's body does (at a stream's terminal event, after the call's journal write):
 * from then on the rest of the body is read and dropped as it comes, never held, so the upstream's
 * connection can be used again.
 * Every wait on the response also ends when it closes: Node emits no `drain` on a socket the client
 * has closed (and calling back `end` there is not something every version does), and a wait that
 * never settles keeps the call in flight until the drain deadline, and the process with it.
 */
class UpstreamExchange implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #body: ResponseBody | null = null;
  #gathered: Buffer[] = [];
  #flushQueued = false;
  /** Waiting for the client's drain (what comes is gathered meanwhile) or for the response's end. */
  #waiting = false;
  /** The client's answer is complete (a stream's terminal event): the rest of the body is dropped. */
  #answered = false;
  #upstreamEnded = false;
  #settled = false;
  readonly #signal: AbortSignal;
  readonly #res: ServerResponse;
  readonly #downstream: Downstream;
  readonly #resolve: () => void;
  readonly #reject: (error: Error) => void;

  constructor(downstream: Downstream, resolve: () => void, reject: (error: Error) => void) {
    this.#downstream = downstream;
    this.#signal = downstream.signal;
    this.#res = downstream.res;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal.addEventListener("abort", this.#onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.#controller = controller;
    if (this.#signal.aborted) controller.abort(this.#signal.reason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ) {
    if (statusCode < 200 || this.#settled) return;
    try {
      this.#body = this.#downstream.start(statusCode, headers);
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.#answered) return;
    this.#gathered.push(chunk);
    this.#queueFlush();
  }

  onResponseEnd() {
    this.#upstreamEnded = true;
    this.#queueFlush();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error) {
    // the request is over: nothing is left to abort or resume
    this.#controller = null;
    this.#fail(error);
  }

  readonly #onAbort = () => this.#controller?.abort(this.#signal.reason);

  #queueFlush() {
    if (this.#flushQueued || this.#waiting) return;
    this.#flushQueued = true;
    process.nextTick(this.#flush);
  }

  /** Hands on what was gathered, and ends the response once the upstream's body has ended. */
  readonly #flush = () => {
    this.#flushQueued = false;
    const res = this.#res;
    const body = this.#body;
    if (this.#waiting || this.#settled || !body) return;
    try {
      if (this.#gathered.length > 0) {
        const gathered = this.#gathered;
        this.#gathered = [];
        // (a write after the end would be an error on the response, and the process's end with it)
        if (!res.writableEnded) {
          const out = body.deliver(gathered.length === 1 ? gathered[0]! : Buffer.concat(gathered));
          if (res.destroyed) return this.#fail(new ClientGoneError());
          if (body.completes()) {
            this.#answered = true;
            return this.#end(out, this.#resume);
          }
          if (out && !res.write(out)) {
            this.#waiting = true;
            this.#controller?.pause();
            return settleOnce(res, "drain", this.#drained);
          }
        }
      }
      if (!this.#upstreamEnded) return;
      if (res.writableEnded) return this.#done();
      this.#end(body.finish(), this.#done);
    } catch (error) {
      this.#fail(error as Error);
    }
  };

  /** Ends the response with `last`, and `then` once it has (which may be before `endWith` returns). */
  #end(last: Buffer | null, then: () => void) {
    this.#waiting = true;
    this.#body!.endWith(last, then)?.catch(this.#fail);
  }

  readonly #resume = () => {
    this.#waiting = false;
    this.#flush();
  };

  readonly #drained = () => {
    if (this.#res.destroyed) return this.#fail(new ClientGoneError());
    this.#waiting = false;
    if (!this.#upstreamEnded) this.#controller?.resume();
    this.#flush();
  };

  readonly #done = () => {
    if (this.#settle()) this.#resolve();
  };

  readonly #fail = (error: Error) => {
    if (!this.#settle()) return;
    // (the upstream's request, if it is still going: its own error comes back here, settled)
    if (!this.#upstreamEnded) this.#controller?.abort(error);
    this.#reject(error);
  };

  /** Marks the exchange settled, once: false when it already was. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#signal.removeEventListener("abort", this.#onAbort);
    return true;
  }
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
