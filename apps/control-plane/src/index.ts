export { createControlPlaneApp } from "./app.ts";
export { type ConfigSync, configSync } from "./services/config-sync.ts";
export type { Services as ControlPlaneServices } from "./services/context.ts";
export { cursorCodec } from "./services/cursor.ts";
export { createOrg } from "./services/orgs.ts";
