import type { Context, Hono } from "hono";
import { z } from "zod";
import { type IdempotentCreate, runIdempotently } from "./idempotency.ts";
import type { AppEnv } from "./services/context.ts";
import { jsonBody, queryParams } from "./validate.ts";

const noQuery = z.strictObject({});

type Method = "get" | "post" | "put" | "patch" | "delete";

/** Who may call a surface: an org's `sk_` key, the operator token, or anyone. */
export type Security = "orgKey" | "operator" | null;

export interface ResponseDoc {
  description: string;
  /** Absent for bodiless answers (204). */
  schema?: z.ZodType;
}

/** One operation's contract: the single source for validation, the OpenAPI document and /docs. */
interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: Method;
  /** Relative to the surface, in Hono's `:param` form. */
  path: string;
  summary: string;
  description?: string;
  body?: B;
  query?: Q;
  /** The success answer plus any status the route itself raises beyond 400/401/404. */
  responses: Record<number, ResponseDoc>;
  /** A create that takes an `Idempotency-Key` (see `runIdempotently`). */
  idempotent?: IdempotentCreate;
}

export interface RegisteredRoute extends RouteSpec<z.ZodType | undefined, z.ZodType | undefined> {
  /** Full path, prefix included, in Hono's `:param` form. */
  fullPath: string;
  tag: string;
  security: Security;
}

type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;

interface RouteInput<B, Q> {
  body: Parsed<B>;
  query: Parsed<Q>;
}

/** What a route file registers its operations on: one surface, one tag. */
export interface RouteTable {
  add<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<B, Q>,
    handler: (c: Context<AppEnv>, input: RouteInput<B, Q>) => Promise<Response> | Response,
  ): void;
}

/**
 * Routes are mounted only through here, so the list below is exactly what the server answers:
 * a test compares it with Hono's own route table, and the OpenAPI document is built from it.
 */
export function routeRegistry() {
  const routes: RegisteredRoute[] = [];
  return {
    routes,
    /** A table for one surface (a Hono sub-app mounted at `prefix`), with its doc tag. */
    table(app: Hono<AppEnv>, prefix: string, security: Security, tag: string): RouteTable {
      return {
        add(spec, handler) {
          const fullPath = prefix + spec.path;
          const method = spec.method.toUpperCase();
          routes.push({ ...spec, fullPath, tag, security });
          app.on(method, spec.path, async (c) => {
            // Without a query schema no parameter is expected: any is an unknown field (400).
            const query = queryParams(c, spec.query ?? noQuery);
            const body = spec.body ? await jsonBody(c, spec.body) : undefined;
            const run = async () =>
              handler(c, { body, query } as RouteInput<typeof spec.body, typeof spec.query>);
            if (!spec.idempotent) return run();
            return runIdempotently(c, { key: `${method} ${fullPath}`, security }, spec.idempotent, body, run);
          });
        },
      };
    },
  };
}

/** A path parameter the route's pattern guarantees (Hono types it as possibly undefined). */
export function pathParam(c: Context<AppEnv>, name: string): string {
  return c.req.param(name) ?? "";
}
