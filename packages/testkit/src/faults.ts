import type { IncomingHttpHeaders } from "node:http";

/** Per-request fault injection, read from `x-mock-*` request headers so that it survives a proxy. */
export interface Faults {
  /** Error status to answer instead of a normal response (400-599 only). */
  status: number | undefined;
  firstByteDelayMs: number;
  frameDelayMs: number;
  /** An event stream's headers go out at once, its first frame this much later (as a model that thinks first). */
  firstFrameDelayMs: number;
  /**
   * An event stream's end of body comes this much after its last frame (as when the provider's
   * last chunk and the body's terminator travel apart).
   */
  endDelayMs: number;
  /** Destroy the socket after this many SSE frames; 0 destroys it before any byte. */
  resetAfterFrames: number | undefined;
  midstreamError: boolean;
  /** The answer's text is about this many bytes (in pieces of 64 KiB), instead of a few words. */
  answerBytes: number | undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function count(headers: IncomingHttpHeaders, name: string): number | undefined {
  const raw = header(headers, name)?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

export function flag(headers: IncomingHttpHeaders, name: string): boolean {
  const raw = header(headers, name)?.trim().toLowerCase();
  return raw === "1" || raw === "true";
}

export function parseFaults(headers: IncomingHttpHeaders): Faults {
  const status = count(headers, "x-mock-status");
  return {
    status: status !== undefined && status >= 400 && status <= 599 ? status : undefined,
    firstByteDelayMs: count(headers, "x-mock-first-byte-delay-ms") ?? 0,
    frameDelayMs: count(headers, "x-mock-frame-delay-ms") ?? 0,
    firstFrameDelayMs: count(headers, "x-mock-first-frame-delay-ms") ?? 0,
    endDelayMs: count(headers, "x-mock-end-delay-ms") ?? 0,
    resetAfterFrames: count(headers, "x-mock-reset-after-frames"),
    midstreamError: flag(headers, "x-mock-midstream-error"),
    answerBytes: count(headers, "x-mock-answer-bytes"),
  };
}
