import { html } from "hono/html";
import { z } from "zod";
import type { Cell, Html } from "../layout.ts";
import { table } from "../layout.ts";

const encoding = z.enum(["utf8", "base64"]);

/** A body as the envelope holds it: UTF-8 text, or base64 when the bytes are not UTF-8. */
interface RawBody {
  encoding: z.infer<typeof encoding>;
  data: string;
}

/**
 * What the console reads of a capture envelope (the API serves it as stored; docs/decisions.md
 * has the whole layout). `response_frames`: each stream frame's byte offset in the response body
 * and its time from the request, in milliseconds.
 */
export const capturedCall = z.looseObject({
  request_headers: z.record(z.string(), z.string()),
  response_headers: z.record(z.string(), z.string()),
  request_body: z.string(),
  request_body_encoding: encoding,
  response_body: z.string(),
  response_body_encoding: encoding,
  request_body_omitted_bytes: z.number().optional(),
  response_body_omitted_bytes: z.number().optional(),
  response_frames: z.array(z.tuple([z.number(), z.number()])).optional(),
});
export type CapturedCall = z.infer<typeof capturedCall>;

/** One body of a capture, with its encoding. */
export function bodyOf(capture: CapturedCall, part: "request" | "response"): RawBody {
  return part === "request"
    ? { encoding: capture.request_body_encoding, data: capture.request_body }
    : { encoding: capture.response_body_encoding, data: capture.response_body };
}

/** The bytes exactly as recorded. */
export const bodyBytes = (body: RawBody) =>
  Buffer.from(body.data, body.encoding === "base64" ? "base64" : "utf8");

/** What is shown of a body inline; the rest is one click away as the raw download. */
const shownBytes = 64 * 1024;
const shownFrames = 500;

function textOf(bytes: Buffer): string {
  return bytes.toString("utf8");
}

/** The body as text (capped), with a pretty-printed JSON view over the same bytes when it parses. */
export function bodyView(label: string, body: RawBody, omitted: number | undefined, rawUrl: string): Html {
  const bytes = bodyBytes(body);
  const capped = bytes.length > shownBytes;
  const shown = bytes.subarray(0, shownBytes);
  let pretty: string | null = null;
  if (!capped && body.encoding === "utf8") {
    try {
      pretty = JSON.stringify(JSON.parse(textOf(shown)), null, 2);
    } catch {
      pretty = null;
    }
  }
  const note = [
    `${bytes.length} bytes${body.encoding === "base64" ? " (not UTF-8: shown as decoded with replacement characters)" : ""}`,
    capped ? `showing the first ${shownBytes}` : null,
    omitted ? `${omitted} more bytes past the capture limit were not recorded` : null,
  ]
    .filter(Boolean)
    .join("; ");
  return html`<p>${note}. <a href="${rawUrl}" download>Download the raw bytes</a></p>
<pre tabindex="0" aria-label="${label}, raw">${textOf(shown)}</pre>
${pretty === null ? "" : html`<details><summary>${label} as formatted JSON (a view; the bytes above are the record)</summary><pre tabindex="0">${pretty}</pre></details>`}`;
}

/** A stream, frame by frame: each frame's bytes and its time from the request. */
export function framesView(body: RawBody, frames: [number, number][]): Html {
  const bytes = bodyBytes(body);
  const rows: Cell[][] = frames.slice(0, shownFrames).map(([offset, ms], i) => {
    const end = frames[i + 1]?.[0] ?? bytes.length;
    const frame = bytes.subarray(offset, end);
    return [
      String(i + 1),
      `${ms} ms`,
      String(offset),
      String(frame.length),
      html`<code class="frame">${textOf(frame)}</code>`,
    ];
  });
  const more =
    frames.length > shownFrames
      ? html`<p>${frames.length - shownFrames} more frames: see the raw download.</p>`
      : "";
  return html`${table(
    `Stream frames (${frames.length}), with each frame's time from the request`,
    ["#", "Offset (time)", "Byte offset", "Bytes", "Frame"],
    rows,
  )}${more}`;
}

export function headersView(caption: string, headers: Record<string, string>): Html {
  return table(
    caption,
    ["Header", "Value"],
    Object.entries(headers).map(([name, value]) => [html`<code>${name}</code>`, html`<code>${value}</code>`]),
    "none recorded.",
  );
}
