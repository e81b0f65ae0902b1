import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import {
  endsAtFrameBoundary,
  factsFromJsonBody,
  midStreamErrorFrame,
  SseFactsTracker,
  upstreamRequestIdHeader,
} from "@gateway/providers";
import type { Attempt } from "./attempt.ts";
import { type CallContext, keepAnswer } from "./call-context.ts";
import { armOf, type CallState, gatewayHeaders, markTruncated, markUpstreamError } from "./call-state.ts";
import { captureHeaders, downstreamResponseHeaders, singleHeader } from "./headers.ts";
import { type FactsSource, recordCall } from "./record-call.ts";
import { type Downstream, endResponse, type ResponseBody } from "./upstream-exchange.ts";
import { createUsageChunkFilter } from "./usage-chunk-filter.ts";

/**
 * How long the rest of an upstream's body may take after its terminal event, the client's response
 * ended: the providers end theirs at once, in the same read or the next.
 */
const upstreamEndGraceMs = 1_000;

/** The routed arm answered with a server error: recoverable, since nothing was sent yet. */
export class UpstreamServerError extends Error {}

/**
 * One attempt's upstream response on its way to the client, from its head to its end: the
 * exchange's `Downstream` and its `ResponseBody`. Usage is read from the bytes in passing; bodies are kept only when
 * captured (or, for JSON, until usage is read). One object per attempt rather than a set of
 * closures over the same state: this runs on every call.
 */
export class AttemptResponse implements Downstream, ResponseBody, FactsSource {
  /** Set once the head arrives for an event stream: it is read frame by frame as it passes. */
  #sse: SseFactsTracker | null = null;
  /** Set once the head arrives for a billable JSON body: kept (as the answer) to read its usage. */
  #json = false;
  readonly #filter: ReturnType<typeof createUsageChunkFilter> | null;
  /** The last bytes the caller got, to know whether an error frame must first close a cut frame. */
  #lastSent: Buffer | null = null;
  /**
   * A body that is not a stream keeps its latest chunk back until the next one, and its last goes
   * out with the response's end, after the call is journaled (`endWith`): written in full before
   * then (a client that reads slowly makes the end wait for a drain), it would complete the
   * client's answer (its content-length) before the journal had the call.
   */
  #heldBack: Buffer | null = null;
  /** Set once the upstream's body has ended, whether or not the client was still there for it. */
  #bodyEnded = false;
  /** Set once the response is ending: its end waits for the call's journal write. */
  #ending: Promise<void> | null = null;
  /** Cuts short the rest of an upstream's body after the response ended (`#awaitUpstreamEnd`). */
  #upstreamEndTimer: NodeJS.Timeout | undefined;
  #upstreamDone = false;
  #factsRead = false;
  readonly #ctx: CallContext;
  readonly #call: CallState;
  readonly #recoverable: boolean;
  readonly #res: ServerResponse;
  /** The gateway's own response headers, this attempt's (its mode, route and model). */
  readonly #ours: Record<string, string>;

  /** `attempt` is the call's last: the arm its headers report. */
  constructor(ctx: CallContext, attempt: Attempt, recoverable: boolean) {
    this.#ctx = ctx;
    this.#call = ctx.call;
    this.#filter = attempt.hideUsageChunk ? createUsageChunkFilter() : null;
    this.#recoverable = recoverable;
    this.#res = ctx.res;
    // (made before the request goes, while nothing waits on it: nothing may throw between
    // `exchange()` and `forward()`'s wait for it)
    this.#ours = gatewayHeaders(ctx.call.requestId, armOf(ctx.call));
  }

  get res(): ServerResponse {
    return this.#res;
  }

  get signal(): AbortSignal {
    return this.#ctx.abort.signal;
  }

  /** The upstream's status and headers: the response's head goes out (a throw fails the exchange). */
  start(statusCode: number, headers: IncomingHttpHeaders): this {
    const call = this.#call;
    const res = this.#res;
    if (this.#recoverable && statusCode >= 500)
      throw new UpstreamServerError(`upstream answered ${statusCode}`);
    call.firstByteMs = performance.now() - call.startedAt;
    call.status = statusCode;
    const format = call.spec.wireFormat;
    call.upstreamRequestId = singleHeader(headers[upstreamRequestIdHeader(format)]) ?? null;
    const isSse = (singleHeader(headers["content-type"]) ?? "").startsWith("text/event-stream");
    if (isSse) this.#sse = new SseFactsTracker(format);
    else this.#json = call.spec.billable && statusCode < 300;
    const outgoing = downstreamResponseHeaders(headers, this.#ours);
    // A body we filter no longer has the upstream's length.
    if (this.#filter) delete outgoing["content-length"];
    if (call.capture) call.capture.responseHeaders = captureHeaders(outgoing);
    res.writeHead(statusCode, outgoing);
    // An event stream's headers go out at once, not only with a first frame that may take the
    // model a while. One that came in with them (written in this same turn) carries them in its
    // own write: a separate write per stream cost ~10 % of the gateway's CPU under load.
    if (isSse) setImmediate(AttemptResponse.#flushHeaders, this);
    return this;
  }

  /** (static, with the response as its argument: no closure made per stream) */
  static #flushHeaders(response: AttemptResponse) {
    const res = response.#res;
    if (response.#lastSent === null && !res.writableEnded && !res.destroyed) res.flushHeaders();
  }

  /** Whether the response is an event stream (known once its head arrived). */
  get isStream(): boolean {
    return this.#sse !== null;
  }

  deliver(chunk: Buffer): Buffer | null {
    const filter = this.#filter;
    const sse = this.#sse;
    if (!sse) {
      const previous = this.#heldBack;
      this.#heldBack = this.#send(filter ? filter.push(chunk) : chunk);
      return previous;
    }
    sse.push(chunk);
    // this chunk, with the terminal (or the provider's error) event in it, is on its way
    if ((sse.ended || sse.erred) && !this.#res.destroyed) this.#call.delivered = true;
    return this.#send(filter ? filter.push(chunk) : chunk);
  }

  /**
   * A stream's response ends with the chunk that brings its terminal event, the call recorded
   * first: clients hang up the moment they read it (the SDKs at `[DONE]`, Codex at
   * `response.completed`), and a process killed before the upstream's own end of body must not
   * lose a call its client saw complete. What the upstream sends in later reads is read and dropped.
   */
  completes(): boolean {
    return this.#sse?.ended === true;
  }

  /**
   * The upstream's body ended. A stream closed without its terminal event (and without an error
   * event of its own) did not complete: it ends with an explicit error event, never a clean end.
   */
  finish(): Buffer | null {
    const call = this.#call;
    this.#bodyEnded = true;
    if (!this.#sse && !this.#res.destroyed) call.delivered = true;
    const rest = this.#send(this.#filter?.flush() ?? null);
    const sse = this.#sse;
    const heldBack = this.#heldBack;
    if (!sse) return heldBack && rest ? Buffer.concat([heldBack, rest]) : (heldBack ?? rest);
    if (sse.ended || sse.erred || !markTruncated(call, null)) return rest;
    const frame = this.errorFrames("The upstream provider ended the stream before it was complete.");
    return rest ? Buffer.concat([rest, frame]) : frame;
  }

  /**
   * Ends the response with `last`, the call recorded first: a process killed after the last byte
   * has it. Until the event is journaled, the bytes this turn wrote stay in the corked socket
   * (`res.end` uncorks it).
   */
  endWith(last: Buffer | string | null, callback?: () => void): Promise<void> {
    // Ending already: at a stream's terminal event, and the upstream failed while that end waited
    // for the journal. That end, with the terminal frame, is the one the response gets.
    const ending = this.#ending;
    if (ending) return callback ? ending.then(callback) : ending;
    const res = this.#res;
    const recorded = recordCall(this.#ctx, this);
    res.socket?.cork();
    this.#ending = recorded.then(() => endResponse(res, last, callback));
    if (this.#sse?.ended && !this.#bodyEnded) void this.#ending.then(() => this.#awaitUpstreamEnd());
    return this.#ending;
  }

  /**
   * What the response said about usage and ids: read once, before the call is recorded, from
   * whatever arrived (a stream cut short keeps the usage it had already reported).
   */
  readFacts(): void {
    if (this.#factsRead) return;
    this.#factsRead = true;
    const call = this.#call;
    const answer = this.#ctx.answer;
    if (this.#sse) {
      const facts = this.#sse.finish();
      call.usage = call.spec.billable ? facts.usage : null;
      call.upstreamResponseId = facts.responseId;
      if (facts.sawError) markUpstreamError(call, null);
    } else if (this.#json && this.#bodyEnded && answer && answer.omitted === 0) {
      // (a body past the limit is not kept whole, and its usage cannot be read: docs/decisions.md)
      const facts = factsFromJsonBody(call.spec.wireFormat, answer.bytes());
      call.usage = facts.usage;
      call.upstreamResponseId = facts.responseId;
    }
  }

  /** The frames that end a broken stream; a reset can cut a frame in half, so that one is closed first. */
  errorFrames(message: string): Buffer {
    const call = this.#call;
    const lastSent = this.#lastSent;
    const cutFrame = lastSent !== null && !endsAtFrameBoundary(lastSent);
    const frame = midStreamErrorFrame(call.spec.wireFormat, message, this.#sse?.responseId ?? call.requestId);
    return this.#send(Buffer.from((cutFrame ? "\n\n" : "") + frame))!;
  }

  /** The exchange is over, its upstream's body read to its end or given up. */
  upstreamSettled(): void {
    this.#upstreamDone = true;
    clearTimeout(this.#upstreamEndTimer);
  }

  /**
   * A response that ended before the upstream's body (at its terminal event) reads the rest, for
   * the connection to be used again, but not for long: an answered, recorded call would stay in
   * flight (and hold up a drain) for as long as an upstream holds its end back.
   */
  #awaitUpstreamEnd() {
    if (!this.#upstreamDone)
      this.#upstreamEndTimer = setTimeout(() => this.#ctx.abort.abort(), upstreamEndGraceMs);
  }

  /** Notes `bytes` as sent to the caller (and keeps them as the answer when needed). */
  #send(bytes: Buffer | null): Buffer | null {
    if (bytes && bytes.length > 0) {
      // a JSON body passes the usage filter whole (it holds no frame), so one copy serves both
      // a captured stream keeps each chunk's time too: the console shows it frame by frame
      if (this.#call.capture || this.#json)
        keepAnswer(this.#ctx, bytes, this.#sse !== null && this.#call.capture !== null);
      this.#lastSent = bytes;
    }
    return bytes;
  }
}
