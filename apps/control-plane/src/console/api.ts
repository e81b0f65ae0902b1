import type { Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../services/context.ts";
import type { ConsolePrincipal } from "./session.ts";

/** An answer of the JSON API that the page cannot show as asked (a 404, a 422 from a form). */
export class ConsoleApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function messageOf(body: unknown, status: number): string {
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === "string" ? error.message : `The API answered ${status}.`;
}

/**
 * The console reads and writes only through the public JSON API, in process: the same routes,
 * validation, scoping and errors as any dashboard backend, with the signed-in principal passed as
 * a binding that no HTTP caller can set (see `AppEnv`).
 */
export function consoleApi(app: Hono<AppEnv>, principal: ConsolePrincipal) {
  const call = async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const response = await app.request(path, init, { consolePrincipal: principal });
    const text = await response.text();
    const parsed: unknown = text === "" ? null : JSON.parse(text);
    if (!response.ok) throw new ConsoleApiError(response.status, messageOf(parsed, response.status));
    return parsed;
  };
  return {
    /** A GET whose answer is checked against the route's own response schema. */
    get: async <S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>> =>
      schema.parse(await call("GET", path)),
    send: <S extends z.ZodType>(
      method: "POST" | "PUT" | "PATCH" | "DELETE",
      path: string,
      body: unknown,
      schema: S,
    ) => call(method, path, body).then((answer) => schema.parse(answer) as z.infer<S>),
  };
}

export type ConsoleApi = ReturnType<typeof consoleApi>;

/** Where an org's admin and customer routes live. */
export const adminPath = (orgId: string, rest: string) => `/admin/v1/orgs/${orgId}${rest}`;
export const customerPath = (orgId: string, projectId: string, rest: string) =>
  `/customer/v1/orgs/${orgId}/projects/${encodeURIComponent(projectId)}${rest}`;
