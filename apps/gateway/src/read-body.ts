import type { IncomingMessage } from "node:http";

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: "too_large" | "aborted" };

/**
 * Reads the request body, refusing it as soon as it passes `limit`: a declared Content-Length
 * over the limit is refused before a byte is read, and a chunked body as soon as it crosses it.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.resolve({ ok: false, reason: "too_large" });
  // The caller may have gone while its key was being looked up; its events have fired already.
  if (req.destroyed && !req.complete) return Promise.resolve({ ok: false, reason: "aborted" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    };
    const onAbort = () => {
      cleanup();
      resolve({ ok: false, reason: "aborted" });
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("aborted", onAbort);
      req.off("close", onClose);
    };
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("aborted", onAbort);
    req.on("close", onClose);
  });
}
