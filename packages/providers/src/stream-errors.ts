import type { WireFormat } from "./wire-format.ts";

/**
 * The SSE frames that end a stream the gateway can no longer complete, in the stream's own
 * format, so that a client sees an error rather than a stream that merely stopped. A responses
 * stream also gets the `response.failed` that follows an error event on the live API: clients
 * such as Codex read the failure from it and ignore a bare `error` event. `responseId` names the
 * response in it (the upstream's id when the stream had named one).
 */
export function midStreamErrorFrame(format: WireFormat, message: string, responseId: string): string {
  switch (format) {
    case "messages":
      return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message } })}\n\n`;
    case "chat_completions":
      return `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code: "upstream_disconnected" } })}\n\n`;
    case "responses": {
      const error = { type: "server_error", code: "upstream_disconnected", message, param: null };
      const failed = {
        type: "response.failed",
        response: {
          id: responseId,
          object: "response",
          status: "failed",
          error: { code: error.code, message },
          incomplete_details: null,
          output: [],
          usage: null,
        },
      };
      return (
        `event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n` +
        `event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`
      );
    }
  }
}
