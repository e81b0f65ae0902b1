export { plainUsage, testCallEvent } from "./call-event.ts";
export type { Faults } from "./faults.ts";
export { freePort } from "./free-port.ts";
export { type PromSample, parsePrometheusText, type Scrape, scrape } from "./prometheus-text.ts";
export { startMockProviderA } from "./provider-a/provider-a.ts";
export { startMockProviderB } from "./provider-b/provider-b.ts";
export { type MockProviders, startMockProviders } from "./start-mock-providers.ts";
export type { MockProvider, MockProviderOptions, RecordedRequest } from "./types.ts";
