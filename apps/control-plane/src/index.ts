export { createControlPlane, createControlPlaneApp, surfaces } from "./app.ts";
export { openApiPath } from "./openapi.ts";
export type { Method, RegisteredRoute } from "./route-registry.ts";
export { buildServices } from "./services/build-services.ts";
export { catalogFile, loadCatalogFile } from "./services/catalog.ts";
export { type ConfigSync, configSync } from "./services/config-sync.ts";
export type { Services as ControlPlaneServices } from "./services/context.ts";
export { cursorCodec } from "./services/cursor.ts";
export { createOrg, ensureFirstOrg, firstStartBanner } from "./services/orgs.ts";
