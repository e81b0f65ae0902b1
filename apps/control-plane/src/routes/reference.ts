import { z } from "zod";
import {
  defineRoute,
  json,
  type OpenApiDocument,
  openApiDocument,
  type RouteApp,
  type RouteSite,
} from "../openapi.ts";
import { referencePage } from "../reference-page.ts";

const openApiResponse = z.looseObject({ openapi: z.literal("3.1.0") });

/** GET /openapi.json and GET /docs: public, generated once from every route `app` mounts. */
export function registerReference(app: RouteApp, site: RouteSite) {
  let doc: OpenApiDocument | null = null;
  let page: string | null = null;
  // Built on first use: by then every surface is mounted.
  const document = () => {
    doc ??= openApiDocument(app);
    return doc;
  };

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/openapi.json",
      summary: "This API as an OpenAPI 3.1 document",
      responses: { 200: json("The document.", openApiResponse) },
    }),
    (c) => c.json({ ...document(), openapi: "3.1.0" as const }, 200),
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/docs",
      summary: "This API as a readable reference page (HTML)",
      responses: { 200: { description: "An HTML page." } },
    }),
    (c) => {
      page ??= referencePage(document());
      return c.html(page);
    },
  );
}
