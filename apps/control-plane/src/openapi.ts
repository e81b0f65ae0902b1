import { controlPlaneErrorStatus } from "@gateway/contracts";
import { z } from "zod";
import {
  idempotencyKeyParameter,
  replayedHeaderDoc,
  withIdempotencyRefusals,
} from "./openapi-idempotency.ts";
import type { RegisteredRoute } from "./route-registry.ts";

export type JsonSchema = Record<string, unknown>;

/** zod → JSON Schema 2020-12, the dialect OpenAPI 3.1 uses; `$schema` is implied by the document. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

const errorSchema = z.object({
  error: z.object({
    code: z.enum(Object.keys(controlPlaneErrorStatus) as [string, ...string[]]),
    message: z.string().meta({ description: "What went wrong, naming the offending field for a 400." }),
    details: z
      .unknown()
      .optional()
      .meta({ description: "For a 400: `issues`, one `{field, message}` each." }),
  }),
});

const errorRef = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** `/orgs/:org_id/x` → `/orgs/{org_id}/x`, and the names of its parameters. */
export function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

function operation(route: RegisteredRoute) {
  const { params } = openApiPath(route.fullPath);
  const parameters: JsonSchema[] = params.map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.query) {
    const query = jsonSchema(route.query, "input") as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, schema] of Object.entries(query.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: "query",
        required: query.required?.includes(name) ?? false,
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  }

  if (route.idempotent) parameters.push(idempotencyKeyParameter(route.idempotent));

  const responses: Record<string, unknown> = {};
  const docs = route.idempotent ? withIdempotencyRefusals(route.responses) : route.responses;
  for (const [status, doc] of Object.entries(docs)) {
    // an error answer has the error body unless the route states its own (a probe's 503)
    const success = Number(status) < 400;
    responses[status] = doc.schema
      ? {
          description: doc.description,
          content: { "application/json": { schema: jsonSchema(doc.schema, "output") } },
          ...(success && route.idempotent ? { headers: replayedHeaderDoc } : {}),
        }
      : success
        ? { description: doc.description }
        : errorRef(doc.description);
  }
  // Every route validates its query (unknown parameters included) and most take a body.
  responses["400"] ??= errorRef("Invalid input; the message and `details.issues` name the field.");
  if (route.security) responses["401"] ??= errorRef("Missing or invalid credential.");
  if (route.security === "orgKey" || params.length > 0) {
    responses["404"] ??= errorRef("Not found, or it belongs to another org.");
  }

  const body = route.body ? jsonSchema(route.body, "input") : null;
  return {
    operationId: `${route.method}${route.fullPath.replace(/[^A-Za-z0-9]+(.)?/g, (_, c?: string) => (c ?? "").toUpperCase())}`,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: route.security ? [{ [route.security]: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: Array.isArray(body.required) && body.required.length > 0,
            content: { "application/json": { schema: body } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every registered route. */
export function openApiDocument(routes: readonly RegisteredRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { path } = openApiPath(route.fullPath);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Model gateway control plane",
      version: "1.0.0",
      description:
        "Operator (`/operator/v1`), admin (`/admin/v1`) and customer (`/customer/v1`) APIs. The gateway " +
        "endpoints (`/v1/*`) speak the providers' own formats and are described in the README. " +
        "Every request: bodies up to 1 MiB of JSON (413 beyond); no U+0000 anywhere in a path, query " +
        "string or body (400: no stored text can hold it); each field's limits are stated on its schema.",
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        orgKey: { type: "http", scheme: "bearer", description: "An org's `sk_` API key." },
        operator: {
          type: "http",
          scheme: "bearer",
          description: "The operator token (`GATEWAY_OPERATOR_TOKEN`).",
        },
      },
      schemas: { Error: jsonSchema(errorSchema, "output") },
    },
  };
}
export type OpenApiDocument = ReturnType<typeof openApiDocument>;
