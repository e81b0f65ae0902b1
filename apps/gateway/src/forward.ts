import type { FallbackReason } from "@gateway/contracts";
import { gatewayError } from "@gateway/providers";
import type { Attempt } from "./attempt.ts";
import { AttemptResponse, UpstreamServerError } from "./attempt-response.ts";
import { type CallContext, keepAnswer } from "./call-context.ts";
import {
  armOf,
  type CallError,
  gatewayHeaders,
  markClientAborted,
  markTruncated,
  markUpstreamError,
  prepareRecord,
} from "./call-state.ts";
import { upstreamRequestHeaders } from "./headers.ts";
import { recordCall } from "./record-call.ts";
import { exchange } from "./upstream-exchange.ts";

/**
 * Sends `attempt.body` upstream and writes the upstream's status, headers and body straight into
 * the node response as they arrive (`AttemptResponse`): no fetch(), no Web Response, no
 * re-serialising. With `recoverable`, a failure before the first byte (connect error, 5xx,
 * first-byte timeout) writes nothing and is returned (`timeout`, `error`) for the caller to
 * re-issue; anything else is `done`, the call recorded.
 */
export async function forward(
  ctx: CallContext,
  attempt: Attempt,
  recoverable: boolean,
): Promise<"done" | FallbackReason> {
  const { call, req, res } = ctx;
  const { spec } = call;
  const response = new AttemptResponse(ctx, attempt, recoverable);
  try {
    const exchanged = exchange(
      ctx.gateway.upstream,
      {
        origin: attempt.target.origin,
        path: attempt.target.basePath + spec.upstreamPath + ctx.query,
        method: "POST",
        headers: upstreamRequestHeaders(req.headers, attempt.credential, attempt.mode === "managed"),
        body: attempt.body,
      },
      response,
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
    // who had the whole response before hanging up did not abort it (`markClientAborted`).
    if (call.outcome === "client_aborted" || res.writableEnded || res.destroyed) {
      markClientAborted(call);
      await recordCall(ctx, response);
      return "done";
    }
    const timedOut = isTimeout(error);
    if (recoverable && !res.headersSent) return timedOut ? "timeout" : "error";
    if (call.delivered) {
      // The client has its whole answer; the upstream failed only on the way to its end of body.
      await response.endWith(null);
      return "done";
    }
    const message = upstreamFailureMessage(error);
    const failure: CallError = { type: timedOut ? "upstream_timeout" : "upstream_unavailable", message };
    if (!res.headersSent) {
      markUpstreamError(call, failure);
      const kind = attempt.managed
        ? "model_unavailable"
        : timedOut
          ? "upstream_timeout"
          : "upstream_unavailable";
      const answer = gatewayError(spec.wireFormat, kind, message, call.requestId);
      call.status = answer.status;
      res.writeHead(answer.status, {
        "content-type": "application/json",
        ...gatewayHeaders(call.requestId, armOf(call)),
      });
      if (call.capture) keepAnswer(ctx, Buffer.from(answer.body));
      await response.endWith(answer.body);
    } else if (response.isStream) {
      // Past the first byte there is no status left to change: end the stream with an explicit
      // error event in its own format, never a clean end.
      markTruncated(call, failure);
      await response.endWith(response.errorFrames(message));
    } else {
      markTruncated(call, failure);
      res.destroy();
    }
  }

  await recordCall(ctx, response);
  return "done";
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
