import { afterAll, beforeAll, describe } from "vitest";
import { affinityScenarios } from "./affinity-scenarios.ts";
import { type Deployment, startStandaloneDeployment } from "./deployments.ts";
import { fuzzScenarios } from "./fuzz.ts";
import { hangUpScenarios } from "./hang-up-scenarios.ts";
import { limitScenarios } from "./limit-scenarios.ts";
import { realClientAffinityScenarios } from "./real-client-affinity.ts";
import { realClientScenarios } from "./real-clients.ts";
import { deploymentScenarios } from "./scenarios.ts";

// The default deployment, started as a user starts it; the same scenarios as split.e2e.test.ts.
describe("end to end: standalone process", () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await startStandaloneDeployment();
  }, 90_000);
  afterAll(() => d?.close());
  deploymentScenarios(() => d, "standalone");
  hangUpScenarios(() => d, "standalone");
  realClientScenarios(() => d, "standalone");
  realClientAffinityScenarios(() => d, "standalone");
  limitScenarios(() => d, "standalone");
  affinityScenarios(() => d, "standalone");
  fuzzScenarios(() => d, "standalone");
});
