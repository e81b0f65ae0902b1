/** Small readers for request bodies, which are untrusted `unknown` values. */

export type JsonObject = Record<string, unknown>;

export type ParsedBody = { ok: true; value: unknown } | { ok: false };

export function parseJson(body: Buffer): ParsedBody {
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The request's `model` for error messages, even when the body is not valid JSON. */
export function modelOf(body: Buffer): string | undefined {
  const parsed = parseJson(body);
  return parsed.ok ? asString(asObject(parsed.value)?.model) : undefined;
}
