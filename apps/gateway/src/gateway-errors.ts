import type { IncomingMessage, ServerResponse } from "node:http";
import { ConfigUnavailableError } from "@gateway/cache";
import { gatewayRequestHeaders, type Logger, newId } from "@gateway/contracts";
import { type GatewayErrorKind, gatewayError, type WireFormat } from "@gateway/providers";
import { type CallContext, keepAnswer } from "./call-context.ts";
import { type Arm, armOf, gatewayHeaders } from "./call-state.ts";
import { recordCall } from "./record-call.ts";
import { wireFormatForPath } from "./routes.ts";

/** An error the gateway answers itself, in the endpoint's provider format. */
export interface ErrorAnswer {
  kind: GatewayErrorKind;
  message: string;
  /** The request field at fault, where the format names one. */
  param?: string | null;
  /** Headers that replace the retry headers of `kind` (a limit's 429 has its own). */
  headers?: Record<string, string>;
}

/** Answers the call with a gateway error, the call recorded first. */
export function fail(ctx: CallContext, answer: ErrorAnswer): Promise<void> {
  const { call, res } = ctx;
  const { kind, message } = answer;
  const error = gatewayError(call.spec.wireFormat, kind, message, call.requestId, answer.param ?? null);
  call.status = error.status;
  call.error = { type: error.type, message };
  if (call.capture) keepAnswer(ctx, Buffer.from(error.body));
  return recordCall(ctx).then(() =>
    sendJson(res, error.status, error.body, {
      ...gatewayHeaders(call.requestId, armOf(call)),
      ...(answer.headers ?? retryHeaders(kind)),
    }),
  );
}

/** A call whose handling threw: 503 to retry if the config store did not answer, else 500. */
export function failThrown(ctx: CallContext, error: unknown): Promise<void> | undefined {
  const { log } = ctx.gateway;
  const requestId = ctx.call.requestId;
  const thrown = thrownError(error);
  if (thrown.kind === "internal") log.error("gateway request failed", { request_id: requestId, error });
  else log.warn("config store did not answer", { request_id: requestId, error });
  if (!ctx.res.headersSent) return fail(ctx, thrown);
  ctx.res.destroy();
}

/**
 * The last resort, for a request whose handling threw past every answer of its own (a bug): a
 * 500 in the endpoint's provider format with the gateway's headers, as every other answer, under
 * the call's own request id and arm when the call had begun (its log line, event and span say the
 * same id); a response already under way is cut.
 */
export function failUnhandled({ res, log, error, as }: UnhandledFailure): void {
  log.error("gateway request failed", { request_id: as.requestId, error });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const failure = gatewayError(as.format, "internal", internalMessage, as.requestId);
  sendJson(res, failure.status, failure.body, gatewayHeaders(as.requestId, as.arm));
}

/** What a last-resort answer says it answers: the endpoint's format, a request id, an arm. */
export interface AnsweredAs {
  format: WireFormat;
  requestId: string;
  arm: Pick<Arm, "mode" | "route" | "servedModel">;
}

/** A request that threw before it became a call: a fresh id, the format of its path, the mode its headers ask for. */
export function requestAnsweredAs(req: IncomingMessage): AnsweredAs {
  const mode = req.headers[gatewayRequestHeaders.upstreamKey] ? "byo" : "managed";
  return {
    format: wireFormatForPath(req.url ?? "/"),
    requestId: newId("request"),
    arm: { mode, route: "primary", servedModel: null },
  };
}

interface UnhandledFailure {
  res: ServerResponse;
  log: Logger;
  error: unknown;
  as: AnsweredAs;
}

const internalMessage = "Internal gateway error.";

export function thrownError(error: unknown): { kind: GatewayErrorKind; message: string } {
  return error instanceof ConfigUnavailableError
    ? {
        kind: "config_unavailable",
        message:
          "The gateway could not read its configuration in time (key, project or model); retry shortly.",
      }
    : { kind: "internal", message: internalMessage };
}

/** A 503 of the gateway's own is over in a moment: the SDKs wait this long before their retry. */
export function retryHeaders(kind: GatewayErrorKind): Record<string, string> {
  return kind === "config_unavailable" ? { "retry-after": "1" } : {};
}

export function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}
