import { type ControlPlaneServices, createControlPlaneApp } from "@gateway/control-plane";
import { describe, expect, it } from "vitest";
import { createGatewayClient, type GatewayClientOptions } from "../src/index.ts";

describe("createGatewayClient", () => {
  it("sends its credential as a bearer token through the fetch it is given", async () => {
    // the control plane's own app answers in-process; /livez touches no service
    const app = createControlPlaneApp({} as ControlPlaneServices);
    const seen: string[] = [];
    const client = createGatewayClient({
      baseUrl: "http://control-plane.invalid",
      operatorToken: "op-token",
      fetch: async (request) => {
        seen.push(`${request.method} ${request.url} ${request.headers.get("authorization")}`);
        return app.fetch(request);
      },
    });
    const { data, error } = await client.GET("/livez");
    expect([data, error]).toEqual([{ status: "alive" }, undefined]);
    expect(seen).toEqual(["GET http://control-plane.invalid/livez Bearer op-token"]);
  });

  it("refuses options a caller without types could pass: no base URL, no credential, or both", () => {
    const refused = (options: object) => () => createGatewayClient(options as GatewayClientOptions);
    expect(refused({ apiKey: "sk_x" })).toThrow("baseUrl is required");
    expect(refused({ baseUrl: "http://cp" })).toThrow("exactly one of apiKey and operatorToken");
    expect(refused({ baseUrl: "http://cp", apiKey: "" })).toThrow("exactly one of apiKey and operatorToken");
    expect(refused({ baseUrl: "http://cp", apiKey: "sk_x", operatorToken: "op" })).toThrow(
      "exactly one of apiKey and operatorToken",
    );
  });
});
