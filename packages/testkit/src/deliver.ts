import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { Faults } from "./faults.ts";
import type { Reply } from "./reply.ts";

export interface Delivery {
  req: IncomingMessage;
  res: ServerResponse;
  faults: Faults;
  /** Aborted when the connection closes, so pending delays stop early. */
  signal: AbortSignal;
  /** Called just before the mock destroys the socket itself, so this is not recorded as a client abort. */
  onSelfReset(): void;
}

/** Resolves false when the connection went away during the wait. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms > 0) {
    try {
      await sleep(ms, undefined, { signal });
    } catch {
      return false;
    }
  }
  return !signal.aborted;
}

/** Resolves once the frame has been handed to the kernel, so that a reset right after cannot drop it. */
function writeFlushed(res: ServerResponse, frame: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
    res.write(frame, () => resolve());
  });
}

function selfReset(delivery: Delivery): void {
  delivery.onSelfReset();
  delivery.req.socket.destroy();
}

/** Writes a reply, applying the transport-level faults (delays and resets). */
export async function deliver(delivery: Delivery, reply: Reply): Promise<void> {
  const { res, faults, signal } = delivery;
  if (!(await pause(faults.firstByteDelayMs, signal))) return;
  if (faults.resetAfterFrames === 0) {
    selfReset(delivery);
    return;
  }
  res.writeHead(reply.status, reply.headers);
  // A JSON body is not made of frames, so only a reset at 0 affects it.
  if (reply.kind === "json") {
    res.end(reply.body);
    return;
  }
  if (faults.firstFrameDelayMs > 0) {
    res.flushHeaders();
    if (!(await pause(faults.firstFrameDelayMs, signal))) return;
  }
  for (const [index, frame] of reply.frames.entries()) {
    if (index > 0 && !(await pause(faults.frameDelayMs, signal))) return;
    if (index + 1 === faults.resetAfterFrames) {
      await writeFlushed(res, frame, signal);
      selfReset(delivery);
      return;
    }
    // One write per frame, so that a proxy sees the same chunking as from the real provider.
    res.write(frame);
  }
  if (faults.endDelayMs > 0 && !(await pause(faults.endDelayMs, signal))) return;
  res.end();
}
