import { isAscii } from "node:buffer";

/** A request body that is a JSON object: what the gateway routes on, and the whole on demand. */
export interface RequestJson {
  /** `model` when it is a string. */
  readonly model: string | null;
  /** `stream: true`. */
  readonly stream: boolean;
  /**
   * The body as read for routing, with no second parse: its ASCII keys and values exact, a
   * non-ASCII string possibly read as Latin-1 (the same bytes always read the same). What names
   * a conversation (`conversationOf`) is read from it.
   */
  readonly asRead: Record<string, unknown>;
  /** The body as an object, read as UTF-8 (only a call whose body is rewritten needs it). */
  whole(): Record<string, unknown>;
}

/**
 * Reads a request body as JSON, or null when it is not a JSON object. Passthrough needs only
 * `model` and `stream`, and a coding agent's body is 100 KB of context: decoding it as UTF-8 and
 * parsing the UTF-16 string that non-ASCII text makes costs ~370 µs, against ~140 µs for its bytes
 * read as Latin-1 (bench/RESULTS.md, "real prompts, zstd batches"). That reading is exact for
 * what is used of it: JSON's structure is ASCII, and a byte >= 0x80 is read as a character
 * >= U+0080 either way (UTF-8 never folds an ASCII byte into another character, and its
 * replacement of invalid bytes is one too), so both readings accept the same bodies, with the same
 * ASCII keys and the same ASCII values. A non-ASCII model name is read again as UTF-8, as is the
 * whole body when it is asked for. `rewritten`: the caller will ask for it (a managed call), so
 * the body is read as UTF-8 at once, and only so.
 */
export function readRequestJson(body: Buffer, { rewritten = false } = {}): RequestJson | null {
  const ascii = isAscii(body);
  const first = parseObject(body, ascii || !rewritten ? "latin1" : "utf8");
  if (!first) return null;
  let utf8: Record<string, unknown> | null = ascii || rewritten ? first : null;
  const whole = () => {
    utf8 ??= parseObject(body, "utf8");
    // (cannot happen: both readings accept the same bodies)
    if (!utf8) throw new Error("a request body read as Latin-1 but not as UTF-8");
    return utf8;
  };
  const model =
    utf8 === null && typeof first.model === "string" && /[^\0-\x7f]/.test(first.model)
      ? whole().model
      : first.model;
  return {
    model: typeof model === "string" ? model : null,
    stream: first.stream === true,
    asRead: first,
    whole,
  };
}

function parseObject(body: Buffer, encoding: "latin1" | "utf8"): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body.toString(encoding));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
