import { newId } from "@gateway/contracts";

/**
 * `frame` (a call event's frame, `frameCallEvent`) copied with a fresh request id in place of
 * `requestId`: the steady-state rounds send more events than they build (building one takes the
 * gateway's own work), each one a new call to the capture writer. Ids have one length, so the
 * frame's layout is unchanged: its event JSON (after the 6 bytes of tag, version and length)
 * holds the id once, as `"request_id"`.
 */
export function withFreshRequestId(frame: Buffer, requestId: string): { requestId: string; frame: Buffer } {
  const fresh = newId("request");
  const field = `"request_id":"${requestId}"`;
  const metaBytes = frame.readUInt32BE(2);
  const at = frame.subarray(6, 6 + metaBytes).indexOf(field);
  if (at < 0 || fresh.length !== requestId.length) throw new Error("a frame without its request id");
  const copy = Buffer.from(frame);
  copy.write(fresh, 6 + at + field.length - requestId.length - 1, "utf8");
  return { requestId: fresh, frame: copy };
}
