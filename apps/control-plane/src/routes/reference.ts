import { z } from "zod";
import { type OpenApiDocument, openApiDocument } from "../openapi.ts";
import { referencePage } from "../reference-page.ts";
import type { RegisteredRoute, RouteTable } from "../route-registry.ts";

const openApiResponse = z.looseObject({ openapi: z.literal("3.1.0") });

/** GET /openapi.json and GET /docs: public, built once from the complete route registry. */
export function registerReference(t: RouteTable, routes: readonly RegisteredRoute[]) {
  let doc: OpenApiDocument | null = null;
  let page: string | null = null;
  // Built on first use: by then every route file has registered.
  const document = () => {
    doc ??= openApiDocument(routes);
    return doc;
  };

  t.add(
    {
      method: "get",
      path: "/openapi.json",
      summary: "This API as an OpenAPI 3.1 document",
      responses: { 200: { description: "The document.", schema: openApiResponse } },
    },
    (c) => c.json(document()),
  );

  t.add(
    {
      method: "get",
      path: "/docs",
      summary: "This API as a readable reference page (HTML)",
      responses: { 200: { description: "An HTML page." } },
    },
    (c) => {
      page ??= referencePage(document());
      return c.html(page);
    },
  );
}
