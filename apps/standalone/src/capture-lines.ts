import type { CapturePlace, captureIndexRow } from "@gateway/capture-writer";

type IndexedFields = Parameters<typeof captureIndexRow>[0];

/** A whole capture found in a file: its envelope's indexed fields and where its bytes are. */
export interface CaptureLine {
  envelope: IndexedFields;
  place: Omit<CapturePlace, "key">;
}

/**
 * The whole captures of a capture file, as a kill may have left it: each complete line that is
 * an envelope (a segment holds several, an object of the per-call layout one, whose request id
 * is its name); `cut` when the file ends inside a line (a write the kill cut short).
 */
export function capturesIn(bytes: Buffer, key: string): { captures: CaptureLine[]; cut: boolean } {
  const perCall = !key.includes("/segments/");
  const captures: CaptureLine[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    if (end < 0) return { captures, cut: true };
    const envelope = envelopeOf(bytes.subarray(offset, end + 1));
    // a per-call object is all of its file, named by its request id: indexed with no offset
    const whole =
      end + 1 === bytes.length && `${envelope?.request_id}.jsonl` === key.slice(key.lastIndexOf("/") + 1);
    if (envelope && (!perCall || whole))
      captures.push({ envelope, place: { offset: perCall ? null : offset, size: end + 1 - offset } });
    offset = end + 1;
  }
  return { captures, cut: false };
}

/** The envelope's indexed fields, when the line is one (valid JSON with each of them a string). */
function envelopeOf(line: Buffer): IndexedFields | null {
  try {
    const envelope = JSON.parse(line.toString("utf8")) as IndexedFields;
    const fields = [
      envelope.request_id,
      envelope.org_id,
      envelope.project_id,
      envelope.workload_id,
      envelope.api_key_id,
      envelope.received_at,
    ];
    return fields.every((v) => typeof v === "string") ? envelope : null;
  } catch {
    return null;
  }
}
