import type { WireFormat } from "./wire-format.ts";

/**
 * The SSE frame that ends a stream the gateway can no longer complete, in the stream's own
 * format, so that a client sees an error rather than a stream that merely stopped.
 */
export function midStreamErrorFrame(format: WireFormat, message: string): string {
  switch (format) {
    case "messages":
      return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message } })}\n\n`;
    case "chat_completions":
      return `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code: "upstream_disconnected" } })}\n\n`;
    case "responses":
      return `event: error\ndata: ${JSON.stringify({
        type: "error",
        error: { type: "server_error", code: "upstream_disconnected", message, param: null },
      })}\n\n`;
  }
}
