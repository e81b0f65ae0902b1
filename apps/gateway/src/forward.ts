import type { IncomingMessage, ServerResponse } from "node:http";
import type { FallbackReason } from "@gateway/contracts";
import {
  endsAtFrameBoundary,
  factsFromJsonBody,
  gatewayError,
  midStreamErrorFrame,
  SseFactsTracker,
  upstreamRequestIdHeader,
} from "@gateway/providers";
import type { Dispatcher } from "undici";
import type { Attempt } from "./attempt.ts";
import { type CallState, gatewayHeaders, keepAnswer, prepareRecord } from "./call-state.ts";
import {
  captureHeaders,
  downstreamResponseHeaders,
  singleHeader,
  upstreamRequestHeaders,
} from "./headers.ts";
import { endResponse, exchange } from "./upstream-exchange.ts";
import { createUsageChunkFilter } from "./usage-chunk-filter.ts";

export type ForwardResult =
  | { kind: "done" }
  /** Only when `recoverable`: nothing reached the client, and the request may be re-issued. */
  | { kind: "failed_before_first_byte"; reason: FallbackReason };

/**
 * How long the rest of an upstream's body may take after its terminal event, the client's response
 * ended: the providers end theirs at once, in the same read or the next.
 */
const upstreamEndGraceMs = 1_000;

/** The routed arm answered with a server error: recoverable, since nothing was sent yet. */
class UpstreamServerError extends Error {}

/**
 * Sends `attempt.body` upstream and writes the upstream's status, headers and body straight into
 * the node response as they arrive: no fetch(), no Web Response, no re-serialising. Usage is read
 * from the bytes in passing; bodies are kept only when captured (or, for JSON, until usage is
 * read). With `recoverable`, a failure before the first byte (connect error, 5xx, first-byte
 * timeout) writes nothing and is returned for the caller to re-issue.
 */
export async function forward(
  dispatcher: Dispatcher,
  call: CallState,
  attempt: Attempt,
  req: IncomingMessage,
  res: ServerResponse,
  query: string,
  recoverable: boolean,
  /**
   * Reads the response's facts and publishes the call's event; called just before the response's
   * last byte goes out, which waits for the promise: the event in the bus's journal (after a
   * large answer's turn).
   */
  record: (readFacts: () => void) => Promise<void>,
): Promise<ForwardResult> {
  const { spec } = call;
  const format = spec.wireFormat;

  // Set once the response head arrives: SSE is read frame by frame as it passes, a billable JSON
  // body is kept (as the answer) until its end to read its usage.
  const reading: { sse: SseFactsTracker | null; json: boolean } = { sse: null, json: false };
  const filter = attempt.hideUsageChunk ? createUsageChunkFilter() : null;
  // The last bytes the caller got, to know whether an error frame must first close a cut frame.
  const sent: { last: Buffer | null } = { last: null };
  const send = (bytes: Buffer | null): Buffer | null => {
    if (bytes && bytes.length > 0) {
      // a JSON body passes the usage filter whole (it holds no frame), so one copy serves both
      if (call.capture || reading.json) keepAnswer(call, bytes);
      sent.last = bytes;
    }
    return bytes;
  };
  // A body that is not a stream keeps its latest chunk back until the next one, and its last
  // goes out with the response's end, after the call is journaled (`endWith`): written in full
  // before then (a client that reads slowly makes the end wait for a drain), it would complete
  // the client's answer (its content-length) before the journal had the call.
  let heldBack: Buffer | null = null;
  const deliver = (chunk: Buffer): Buffer | null => {
    const sse = reading.sse;
    if (!sse) {
      const previous = heldBack;
      heldBack = send(filter ? filter.push(chunk) : chunk);
      return previous;
    }
    sse.push(chunk);
    // this chunk, with the terminal (or the provider's error) event in it, is on its way
    if ((sse.ended || sse.erred) && !res.destroyed) call.delivered = true;
    return send(filter ? filter.push(chunk) : chunk);
  };
  // A stream's response ends with the chunk that brings its terminal event, the call recorded
  // first: clients hang up the moment they read it (the SDKs at `[DONE]`, Codex at
  // `response.completed`), and a process killed before the upstream's own end of body must not
  // lose a call its client saw complete. What the upstream sends in later reads is read and dropped.
  const completes = () => reading.sse?.ended === true;
  // Set once the upstream's body has ended, whether or not the client was still there for it.
  let bodyEnded = false;
  // Set once the response is ending: its end waits for the call's journal write.
  let ending: Promise<void> | null = null;
  // A response that ended before the upstream's body (at its terminal event) reads the rest, for
  // the connection to be used again, but not for long: an answered, recorded call would stay in
  // flight (and hold up a drain) for as long as an upstream holds its end back.
  const upstreamEnd: { timer?: NodeJS.Timeout; settled: boolean } = { settled: false };
  const awaitUpstreamEnd = () => {
    if (!upstreamEnd.settled) upstreamEnd.timer = setTimeout(() => call.abort.abort(), upstreamEndGraceMs);
  };
  const upstreamSettled = () => {
    upstreamEnd.settled = true;
    clearTimeout(upstreamEnd.timer);
  };
  // What the response said about usage and ids: read once, before the call is recorded, from
  // whatever arrived (a stream cut short keeps the usage it had already reported).
  let factsRead = false;
  const readFacts = () => {
    if (factsRead) return;
    factsRead = true;
    if (reading.sse) {
      const facts = reading.sse.finish();
      call.usage = spec.billable ? facts.usage : null;
      call.upstreamResponseId = facts.responseId;
      if (facts.sawError && call.outcome === "complete") call.outcome = "upstream_error";
    } else if (reading.json && bodyEnded && call.answer && call.answer.omitted === 0) {
      // (a body past the limit is not kept whole, and its usage cannot be read: docs/decisions.md)
      const facts = factsFromJsonBody(format, call.answer.bytes());
      call.usage = facts.usage;
      call.upstreamResponseId = facts.responseId;
    }
  };
  /**
   * Ends the response with `last`, the call recorded first: a process killed after the last byte
   * has it. Until the event is journaled, the bytes this turn wrote stay in the corked socket
   * (`res.end` uncorks it).
   */
  const endWith = (last: Buffer | string | null, callback?: () => void): Promise<void> => {
    // Ending already: at a stream's terminal event, and the upstream failed while that end waited
    // for the journal. That end, with the terminal frame, is the one the response gets.
    if (ending) return callback ? ending.then(callback) : ending;
    const recorded = record(readFacts);
    res.socket?.cork();
    ending = recorded.then(() => endResponse(res, last, callback));
    if (reading.sse?.ended && !bodyEnded) void ending.then(awaitUpstreamEnd);
    return ending;
  };
  /** The frames that end a broken stream; a reset can cut a frame in half, so that one is closed first. */
  const errorFrames = (sse: SseFactsTracker, message: string): Buffer =>
    send(
      Buffer.from(
        (needsFrameEnd(sent.last) ? "\n\n" : "") +
          midStreamErrorFrame(format, message, sse.responseId ?? call.requestId),
      ),
    )!;
  // The upstream's body ended. A stream closed without its terminal event (and without an error
  // event of its own) did not complete: it ends with an explicit error event, never a clean end.
  const finish = (): Buffer | null => {
    bodyEnded = true;
    if (!reading.sse && !res.destroyed) call.delivered = true;
    const rest = send(filter?.flush() ?? null);
    const sse = reading.sse;
    if (!sse) return heldBack && rest ? Buffer.concat([heldBack, rest]) : (heldBack ?? rest);
    if (sse.ended || sse.erred || call.outcome !== "complete") return rest;
    call.outcome = "truncated";
    const frame = errorFrames(sse, "The upstream provider ended the stream before it was complete.");
    return rest ? Buffer.concat([rest, frame]) : frame;
  };

  // The gateway's own response headers, this attempt's (its mode, route and model).
  const ours = gatewayHeaders(call);
  try {
    const exchanged = exchange(
      dispatcher,
      {
        origin: attempt.target.origin,
        path: attempt.target.basePath + spec.upstreamPath + query,
        method: "POST",
        headers: upstreamRequestHeaders(req.headers, attempt.credential, attempt.mode === "managed"),
        body: attempt.body,
      },
      call.abort.signal,
      res,
      (statusCode, headers) => {
        if (recoverable && statusCode >= 500)
          throw new UpstreamServerError(`upstream answered ${statusCode}`);
        call.firstByteMs = performance.now() - call.startedAt;
        call.status = statusCode;
        call.upstreamRequestId = singleHeader(headers[upstreamRequestIdHeader(format)]) ?? null;
        const isSse = (singleHeader(headers["content-type"]) ?? "").startsWith("text/event-stream");
        if (isSse) reading.sse = new SseFactsTracker(format);
        else reading.json = spec.billable && statusCode < 300;
        const outgoing = downstreamResponseHeaders(headers, ours);
        // A body we filter no longer has the upstream's length.
        if (filter) delete outgoing["content-length"];
        if (call.capture) call.capture.responseHeaders = captureHeaders(outgoing);
        res.writeHead(statusCode, outgoing);
        // An event stream's headers go out at once, not only with a first frame that may take
        // the model a while. One that came in with them (written in this same turn) carries them
        // in its own write: a separate write per stream cost ~10 % of the gateway's CPU under load.
        if (isSse) {
          setImmediate(() => {
            if (sent.last === null && !res.writableEnded && !res.destroyed) res.flushHeaders();
          });
        }
        return { deliver, completes, finish, endWith };
      },
    );
    // The request is on its way (undici writes it within that call when a connection is free):
    // what the call's record needs of the request alone is made while the upstream works, not
    // between its answer and the caller. (Nothing here may throw: `exchanged` is not awaited yet.)
    prepareRecord(call);
    await exchanged;
    upstreamSettled();
  } catch (error) {
    upstreamSettled();
    // The response already ended or broke: the caller is gone (an EPIPE on the last flush can
    // arrive before its connection reports closing). There is no one left to answer. A caller
    // who had the whole response before hanging up did not abort it.
    if (call.outcome === "client_aborted" || res.writableEnded || res.destroyed) {
      if (!call.delivered) call.outcome = "client_aborted";
      await record(readFacts);
      return { kind: "done" };
    }
    const timedOut = isTimeout(error);
    if (recoverable && !res.headersSent)
      return { kind: "failed_before_first_byte", reason: timedOut ? "timeout" : "error" };
    if (call.delivered) {
      // The client has its whole answer; the upstream failed only on the way to its end of body.
      await endWith(null);
      return { kind: "done" };
    }
    const message = upstreamFailureMessage(error);
    call.error = { type: timedOut ? "upstream_timeout" : "upstream_unavailable", message };
    call.outcome = "upstream_error";
    if (!res.headersSent) {
      const kind = attempt.managed
        ? "model_unavailable"
        : timedOut
          ? "upstream_timeout"
          : "upstream_unavailable";
      const failure = gatewayError(format, kind, message, call.requestId);
      call.status = failure.status;
      res.writeHead(failure.status, { "content-type": "application/json", ...gatewayHeaders(call) });
      if (call.capture) keepAnswer(call, Buffer.from(failure.body));
      await endWith(failure.body);
    } else if (reading.sse) {
      // Past the first byte there is no status left to change: end the stream with an explicit
      // error event in its own format, never a clean end.
      call.outcome = "truncated";
      await endWith(errorFrames(reading.sse, message));
    } else {
      call.outcome = "truncated";
      res.destroy();
    }
  }

  await record(readFacts);
  return { kind: "done" };
}

function needsFrameEnd(lastSent: Buffer | null): boolean {
  return lastSent !== null && !endsAtFrameBoundary(lastSent);
}

function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
}

function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return (
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  );
}

function upstreamFailureMessage(error: unknown): string {
  if (error instanceof UpstreamServerError) return "The upstream provider answered with a server error.";
  switch (errorCode(error)) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return "Timed out connecting to the upstream provider.";
    case "UND_ERR_HEADERS_TIMEOUT":
      return "The upstream provider did not start its response in time.";
    case "UND_ERR_BODY_TIMEOUT":
      return "The upstream provider stopped sending its response.";
    case "ECONNREFUSED":
      return "The upstream provider refused the connection.";
    default:
      return "The connection to the upstream provider failed.";
  }
}
