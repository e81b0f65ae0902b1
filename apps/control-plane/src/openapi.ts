import { controlPlaneErrorStatus } from "@gateway/contracts";
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import { z } from "zod";
import type { IdempotentCreate } from "./idempotency.ts";
import { idempotencyKeyParameter, withIdempotencyRefusals } from "./openapi-idempotency.ts";
import type { AppEnv } from "./services/context.ts";
import { jsonRequest } from "./validate.ts";

/** Who may call a surface: an org's `sk_` key, the operator token, or anyone. */
export type Security = "orgKey" | "operator" | null;

/** Where a route file's routes live: its surface (prefix and credential) and its doc tag. */
export interface RouteSite {
  /** The surface's mount point, in Hono's `:param` form. */
  prefix: string;
  security: Security;
  tag: string;
}

/** A sub-app of one surface, whose routes are mounted with `app.openapi(defineRoute(...), handler)`. */
export type RouteApp = OpenAPIHono<AppEnv>;

/** The one error body (registered as `#/components/schemas/Error`). */
const errorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.keys(controlPlaneErrorStatus) as [string, ...string[]]),
      message: z.string().meta({ description: "What went wrong, naming the offending field for a 400." }),
      details: z
        .unknown()
        .optional()
        .meta({ description: "For a 400: `issues`, one `{field, message}` each." }),
    }),
  })
  .meta({ id: "Error" });

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: errorSchema } },
});

/** A JSON answer of `schema`. */
export const json = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body of `schema`; required when `{}` (what an absent body counts as) is refused. */
export const jsonBody = <S extends z.ZodType>(schema: S) => ({
  content: { "application/json": { schema } },
  required: !schema.safeParse({}).success,
});

/** Without a query schema no parameter is expected: any is an unknown field (400). */
const noQuery = z.strictObject({});

type Responses = RouteConfig["responses"];

/** A route's own answers, its create's refusals, and the 400/401/404 every such route can give. */
function responsesOf(site: RouteSite, route: RouteConfig, idempotent?: IdempotentCreate): Responses {
  const own = idempotent ? withIdempotencyRefusals(route.responses) : route.responses;
  const responses: Responses = {};
  for (const [status, response] of Object.entries(own)) {
    // an error answer has the error body unless the route states its own (a probe's 503)
    const stated = "$ref" in response || "content" in response || Number(status) < 400;
    responses[status] = stated ? response : errorResponse(response.description ?? "");
  }
  // Every route validates its query (unknown parameters included) and most take a body.
  responses["400"] ??= errorResponse("Invalid input; the message and `details.issues` name the field.");
  if (site.security) responses["401"] ??= errorResponse("Missing or invalid credential.");
  if (site.security === "orgKey" || /[:{]/.test(site.prefix + route.path)) {
    responses["404"] ??= errorResponse("Not found, or it belongs to another org.");
  }
  return responses;
}

/**
 * A route of `site` for `app.openapi`: the one definition its validation, its handler's types and
 * `/openapi.json` come from. Adds what every route shares: tag, security, operationId, the error
 * answers, the strict empty query, the project's JSON body reading, and for an `idempotent`
 * create its `Idempotency-Key`.
 */
export function defineRoute<R extends RouteConfig>(
  site: RouteSite,
  route: R,
  idempotent?: IdempotentCreate,
): R {
  const fullPath = site.prefix + route.path;
  const body = route.request?.body;
  return {
    ...route,
    operationId: `${route.method}${fullPath.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? "").toUpperCase())}`,
    tags: [site.tag],
    security: site.security ? [{ [site.security]: [] }] : [],
    ...(idempotent ? { parameters: [idempotencyKeyParameter(idempotent)] } : {}),
    request: { ...route.request, query: route.request?.query ?? noQuery },
    ...(body ? { middleware: [jsonRequest] } : {}),
    responses: responsesOf(site, route, idempotent),
  };
}

const info = {
  title: "Model gateway control plane",
  version: "1.0.0",
  description:
    "Operator (`/operator/v1`), admin (`/admin/v1`) and customer (`/customer/v1`) APIs. The gateway " +
    "endpoints (`/v1/*`) speak the providers' own formats and are described in the README. " +
    "Every request: bodies up to 1 MiB of JSON (413 beyond); no U+0000 anywhere in a path, query " +
    "string or body (400: no stored text can hold it); each field's limits are stated on its schema.",
};

/** The credentials `security` names. */
const securitySchemes = {
  orgKey: { type: "http", scheme: "bearer", description: "An org's `sk_` API key." },
  operator: { type: "http", scheme: "bearer", description: "The operator token (`GATEWAY_OPERATOR_TOKEN`)." },
} as const;

/** The OpenAPI 3.1 document of every route `app` mounts, generated from their definitions. */
export function openApiDocument(app: RouteApp) {
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info });
  const operations = Object.values(doc.paths ?? {}).flatMap((methods) => Object.values(methods));
  const tags = new Set(operations.flatMap((op: { tags?: string[] }) => op.tags ?? []));
  return {
    ...doc,
    tags: [...tags].map((name) => ({ name })),
    components: { ...doc.components, securitySchemes },
  };
}
export type OpenApiDocument = ReturnType<typeof openApiDocument>;
