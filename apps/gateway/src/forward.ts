import type { IncomingMessage, ServerResponse } from "node:http";
import type { FallbackReason } from "@gateway/contracts";
import { gatewayError } from "@gateway/providers";
import type { Dispatcher } from "undici";
import type { Attempt } from "./attempt.ts";
import { AttemptResponse, type RecordCall, UpstreamServerError } from "./attempt-response.ts";
import { type CallState, gatewayHeaders, keepAnswer, prepareRecord } from "./call-state.ts";
import { upstreamRequestHeaders } from "./headers.ts";
import { exchange } from "./upstream-exchange.ts";

export type ForwardResult =
  | { kind: "done" }
  /** Only when `recoverable`: nothing reached the client, and the request may be re-issued. */
  | { kind: "failed_before_first_byte"; reason: FallbackReason };

/**
 * Sends `attempt.body` upstream and writes the upstream's status, headers and body straight into
 * the node response as they arrive (`AttemptResponse`): no fetch(), no Web Response, no
 * re-serialising. With `recoverable`, a failure before the first byte (connect error, 5xx,
 * first-byte timeout) writes nothing and is returned for the caller to re-issue.
 */
export async function forward(
  dispatcher: Dispatcher,
  call: CallState,
  attempt: Attempt,
  req: IncomingMessage,
  res: ServerResponse,
  query: string,
  recoverable: boolean,
  record: RecordCall,
): Promise<ForwardResult> {
  const { spec } = call;
  const response = new AttemptResponse(call, attempt, res, recoverable, record);
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
      (statusCode, headers) => response.start(statusCode, headers),
    );
    // The request is on its way (undici writes it within that call when a connection is free):
    // what the call's record needs of the request alone is made while the upstream works, not
    // between its answer and the caller. (Nothing here may throw: `exchanged` is not awaited yet.)
    prepareRecord(call);
    await exchanged;
    response.upstreamSettled();
  } catch (error) {
    response.upstreamSettled();
    // The response already ended or broke: the caller is gone (an EPIPE on the last flush can
    // arrive before its connection reports closing). There is no one left to answer. A caller
    // who had the whole response before hanging up did not abort it.
    if (call.outcome === "client_aborted" || res.writableEnded || res.destroyed) {
      if (!call.delivered) call.outcome = "client_aborted";
      await record(response);
      return { kind: "done" };
    }
    const timedOut = isTimeout(error);
    if (recoverable && !res.headersSent)
      return { kind: "failed_before_first_byte", reason: timedOut ? "timeout" : "error" };
    if (call.delivered) {
      // The client has its whole answer; the upstream failed only on the way to its end of body.
      await response.endWith(null);
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
      const failure = gatewayError(spec.wireFormat, kind, message, call.requestId);
      call.status = failure.status;
      res.writeHead(failure.status, { "content-type": "application/json", ...gatewayHeaders(call) });
      if (call.capture) keepAnswer(call, Buffer.from(failure.body));
      await response.endWith(failure.body);
    } else if (response.isStream) {
      // Past the first byte there is no status left to change: end the stream with an explicit
      // error event in its own format, never a clean end.
      call.outcome = "truncated";
      await response.endWith(response.errorFrames(message));
    } else {
      call.outcome = "truncated";
      res.destroy();
    }
  }

  await record(response);
  return { kind: "done" };
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
