import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { ApiError, validationError } from "./errors.ts";

/**
 * U+0000 is valid JSON and a valid URL escape, but no PostgreSQL text column can hold it: it is
 * refused here, the one place every path, query and body passes, instead of failing in the
 * database as a 500.
 */
const nulRefused = () =>
  new ApiError("bad_request", "U+0000 (NUL) is not allowed in paths, query strings or bodies.");

/** Refuses a path or query string carrying `%00` before any route sees it. */
export const refuseNulInUrl: MiddlewareHandler = async (c, next) => {
  if (/%00/i.test(c.req.url)) throw nulRefused();
  await next();
};

/**
 * Reads a route's JSON body the project's way, whatever its Content-Type says: an absent body
 * counts as `{}`, text that is not JSON is a 400, and so is U+0000 in any key or string. The
 * route's validator (see `defineRoute`) then reads the value from a request rebuilt as JSON.
 */
export const jsonRequest: MiddlewareHandler = async (c, next) => {
  const text = await c.req.text();
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text, (key, v) => {
        if (key.includes("\0") || (typeof v === "string" && v.includes("\0"))) throw nulRefused();
        return v;
      });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError("bad_request", "The request body is not valid JSON.");
    }
  }
  const headers = new Headers(c.req.raw.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  c.req.raw = new Request(c.req.url, { method: c.req.method, headers, body: JSON.stringify(value) });
  c.req.bodyCache = {}; // the text read above is not this request's body any more
  await next();
};

/** Every route's validation failure (query, path or body) as the project's 400 naming each field. */
export function validationHook(result: { success: true } | { success: false; error: z.ZodError }) {
  if (!result.success) throw validationError(result.error);
}

/**
 * A page size from the query string: digits only (no `1e2`, `0x10`, `NaN` or `-1`, which a plain
 * coercion would take or mangle), then 1 to 100.
 */
function pageLimit(defaultLimit: number) {
  return (
    z
      .string()
      .regex(/^[0-9]{1,4}$/, "Expected a whole number from 1 to 100")
      // the default as the query string would carry it, so the document states a string default
      .default(String(defaultLimit))
      .transform(Number)
      .pipe(z.number().int().min(1).max(100))
      .meta({ description: `Page size, 1 to 100 (default ${defaultLimit}).` })
  );
}

/** `limit` and the opaque `cursor` of the previous page's answer. */
export function pageQuery(defaultLimit: number) {
  return z.strictObject({
    limit: pageLimit(defaultLimit),
    cursor: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .meta({ description: "The `cursor` of the previous page; omit for the first page." }),
  });
}
