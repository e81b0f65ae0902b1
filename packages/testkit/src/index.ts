export { plainUsage, testCallEvent } from "./call-event.ts";
export {
  type ControlPlaneSession,
  controlPlaneClient,
  deployment,
  firstOrgSession,
  type Json,
  keyHash,
  operatorToken,
  price,
  putCatalogModel,
} from "./control-plane-client.ts";
export { eventually } from "./eventually.ts";
/** @public testkit's API, for tests to name: what the mocks take as `forcedFaults` */
export type { Faults } from "./faults.ts";
export { freePort } from "./free-port.ts";
export { localEngines } from "./local-engines.ts";
/** @public testkit's API, for tests to name: one of `scrape(...).samples` */
export type { PromSample } from "./prometheus-text.ts";
export { type Scrape, scrape } from "./prometheus-text.ts";
export { startMockProviderA } from "./provider-a/provider-a.ts";
export { startMockProviderB } from "./provider-b/provider-b.ts";
export { type MockProviders, startMockProviders } from "./start-mock-providers.ts";
export { readStartScript } from "./start-script.ts";
/** @public testkit's API, for tests to name: what a mock takes, is, and records */
export type { MockProvider, MockProviderOptions, RecordedRequest } from "./types.ts";
