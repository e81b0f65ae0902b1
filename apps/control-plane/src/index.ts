export { createControlPlaneApp } from "./app.ts";
export { buildServices } from "./services/build-services.ts";
export { configSync } from "./services/config-sync.ts";
export type { Services as ControlPlaneServices } from "./services/context.ts";
export { ensureFirstOrg, firstStartBanner } from "./services/orgs.ts";
export { seedPricesAndQueueRepricing } from "./services/price-seed.ts";
export { startControlPlane } from "./start.ts";
