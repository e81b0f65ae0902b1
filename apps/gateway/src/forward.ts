import type { IncomingMessage, ServerResponse } from "node:http";
import { Writable } from "node:stream";
import {
  createSseFactsTracker,
  factsFromJsonBody,
  gatewayError,
  midStreamErrorFrame,
  type SseFactsTracker,
  upstreamCredentialHeader,
  upstreamRequestIdHeader,
} from "@gateway/providers";
import type { Dispatcher } from "undici";
import { type CallState, gatewayHeaders } from "./call-state.ts";
import {
  captureHeaders,
  downstreamResponseHeaders,
  singleHeader,
  upstreamRequestHeaders,
} from "./headers.ts";

export interface UpstreamTarget {
  /** scheme://host[:port] */
  origin: string;
  /** Path prefix of the base URL, without trailing slash ("" for most). */
  basePath: string;
}

export function upstreamTarget(baseUrl: string): UpstreamTarget {
  const url = new URL(baseUrl);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, "") };
}

/**
 * Sends the request body as received to the upstream and writes the upstream's status, headers
 * and body straight into the node response as they arrive: no fetch(), no Web Response, no
 * re-serialising. Usage is read from the bytes in passing; bodies are kept only when captured
 * (or, for JSON, until usage is read).
 */
export async function forward(
  dispatcher: Dispatcher,
  target: UpstreamTarget,
  call: CallState,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  query: string,
  upstreamKey: string,
): Promise<void> {
  const { spec } = call;
  const format = spec.wireFormat;
  const abort = new AbortController();
  const onClientGone = () => {
    if (!res.writableFinished) {
      call.outcome = "client_aborted";
      abort.abort();
    }
  };
  res.on("close", onClientGone);

  // Set once the response head arrives: SSE is read frame by frame as it passes, a billable JSON
  // body is kept until its end to read its usage.
  const reading: { sse: SseFactsTracker | null; json: Buffer[] | null } = { sse: null, json: null };

  try {
    await dispatcher.stream(
      {
        origin: target.origin,
        path: target.basePath + spec.upstreamPath + query,
        method: "POST",
        headers: upstreamRequestHeaders(req.headers, upstreamCredentialHeader(spec.provider, upstreamKey)),
        body,
        signal: abort.signal,
      },
      ({ statusCode, headers }) => {
        call.firstByteMs = performance.now() - call.startedAt;
        call.status = statusCode;
        call.upstreamRequestId = singleHeader(headers[upstreamRequestIdHeader(spec.provider)]) ?? null;
        const isSse = (singleHeader(headers["content-type"]) ?? "").startsWith("text/event-stream");
        if (isSse) reading.sse = createSseFactsTracker(format);
        else if (spec.billable && statusCode < 300) reading.json = [];
        const outgoing = { ...downstreamResponseHeaders(headers), ...gatewayHeaders(call) };
        if (call.capture) call.capture.responseHeaders = captureHeaders(outgoing);
        res.writeHead(statusCode, outgoing);
        // An event stream's headers go out at once, not with its first frame.
        if (isSse) res.flushHeaders();
        return responseSink(res, (chunk) => {
          reading.sse?.push(chunk);
          reading.json?.push(chunk);
          call.capture?.responseBody.push(chunk);
        });
      },
    );
  } catch (error) {
    if (call.outcome === "client_aborted") return;
    const message = upstreamFailureMessage(error);
    call.error = { type: isTimeout(error) ? "upstream_timeout" : "upstream_unavailable", message };
    call.outcome = "upstream_error";
    if (!res.headersSent) {
      const failure = gatewayError(
        format,
        isTimeout(error) ? "upstream_timeout" : "upstream_unavailable",
        message,
        call.requestId,
      );
      call.status = failure.status;
      res.writeHead(failure.status, { "content-type": "application/json", ...gatewayHeaders(call) });
      res.end(failure.body);
      call.capture?.responseBody.push(Buffer.from(failure.body));
    } else if (reading.sse) {
      // Past the first byte there is no status left to change: end the stream with an explicit
      // error event in its own format, never a clean end.
      call.outcome = "truncated";
      const frame = midStreamErrorFrame(format, message);
      call.capture?.responseBody.push(Buffer.from(frame));
      res.end(frame);
    } else {
      call.outcome = "truncated";
      res.destroy();
    }
  } finally {
    res.off("close", onClientGone);
  }

  if (reading.sse) {
    const facts = reading.sse.finish();
    call.usage = spec.billable ? facts.usage : null;
    call.upstreamResponseId = facts.responseId;
    if (facts.sawError && call.outcome === "complete") call.outcome = "upstream_error";
  } else if (reading.json) {
    const facts = factsFromJsonBody(format, Buffer.concat(reading.json));
    call.usage = facts.usage;
    call.upstreamResponseId = facts.responseId;
  }
}

/** A writable that passes each chunk to the client as it comes, honouring the client's backpressure. */
function responseSink(res: ServerResponse, observe: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      observe(chunk);
      if (res.write(chunk)) callback();
      else res.once("drain", () => callback());
    },
    final(callback) {
      res.end(callback);
    },
  });
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
