import { type CatalogModelEntry, configKeys, configReader, createInProcessCache } from "@gateway/cache";
import { endpointSpecs } from "@gateway/providers";
import { describe, expect, it } from "vitest";
import { type PlanContext, planCall } from "../src/plan.ts";
import { readRequestJson } from "../src/request-json.ts";

/** A catalog entry as the cache holds it, paid with the variable `credentialEnv` names. */
function catalogModel(id: string, credentialEnv: string): CatalogModelEntry {
  return {
    id,
    displayName: id,
    active: true,
    created: 0,
    deployments: [
      {
        id: `dep_${id}`,
        providerLabel: "provider_b",
        wireFormat: "chat_completions",
        baseUrl: "http://127.0.0.1:9",
        upstreamModel: "gpt-5-mini",
        credentialEnv,
        priority: 0,
      },
    ],
  };
}

describe("the credential of a catalog deployment", () => {
  // the process's environment, secrets included, as the app's credentials() would read it
  const environment: Record<string, string> = {
    GATEWAY_OPERATOR_TOKEN: "operator-secret-canary",
    GATEWAY_UPSTREAM_KEY_B: "sk-operator-b",
  };
  const plan = async (credentialEnv: string) => {
    const cache = createInProcessCache();
    // written straight into the cache, as an entry from before the control plane checked it
    await cache.set(configKeys.catalogModel("m"), catalogModel("m", credentialEnv));
    const ctx: PlanContext = {
      config: configReader(cache),
      credentials: (name) => environment[name],
      providerUrls: { provider_a: "http://127.0.0.1:9", provider_b: "http://127.0.0.1:9" },
      responsesKeyEnv: "GATEWAY_PROVIDER_B_MANAGED_KEY",
      random: () => 0,
    };
    const body = Buffer.from(JSON.stringify({ model: "m", messages: [] }));
    return planCall(ctx, {
      spec: endpointSpecs.chat_completions,
      request: readRequestJson(body)!,
      body,
      headers: {},
      upstreamKey: undefined,
      workload: {
        id: "wl",
        projectId: "proj",
        name: "default",
        captureEnabled: false,
        captureSampleRate: 0,
        routeModelId: null,
        routeTrafficPct: 0,
      },
    });
  };

  it("is read from a GATEWAY_UPSTREAM_KEY_ variable", async () => {
    const result = await plan("GATEWAY_UPSTREAM_KEY_B");
    expect(result.ok && result.plan.primary.credential).toEqual({
      name: "authorization",
      value: "Bearer sk-operator-b",
    });
  });

  it("is never another variable of the process, even one a stale cache entry names", async () => {
    const result = await plan("GATEWAY_OPERATOR_TOKEN");
    expect(result).toMatchObject({ ok: false, kind: "model_unavailable" });
    expect(JSON.stringify(result)).not.toContain("operator-secret-canary");
  });
});
