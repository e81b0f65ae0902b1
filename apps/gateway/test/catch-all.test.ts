import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInProcessBus } from "@gateway/bus";
import { type ConfigCache, createInProcessCache } from "@gateway/cache";
import { gatewayResponseHeaders, silentLogger } from "@gateway/contracts";
import { createHttpServer } from "@gateway/runtime";
import type { Tracer } from "@gateway/tracing";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { createGateway } from "../src/gateway.ts";
import { testGatewayConfig } from "./support/gateway-config.ts";

/**
 * The gateway's last resort, reached through real HTTP by breaking a dependency: a request whose
 * handling threw past every answer of its own still gets the endpoint's provider error format
 * and the gateway's four headers, not a bare 500.
 */
let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

async function gatewayWith({ cache, tracer }: { cache: ConfigCache; tracer: Tracer | null }) {
  const gateway = createGateway({
    cache,
    bus: createInProcessBus(),
    log: silentLogger,
    credentials: () => undefined,
    spillDir: join(tmpdir(), `gw-catch-all-spill-${process.pid}`),
    tracer,
    config: testGatewayConfig,
  });
  const server = createHttpServer((req, res) => gateway.handle(req, res), { log: silentLogger });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as { port: number };
  close = async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    await gateway.close();
  };
  return `http://127.0.0.1:${port}`;
}

const broken = () => {
  throw new Error("a dependency broke");
};

describe("the gateway's catch-all error", () => {
  it("answers a /v1/messages call in provider A's format, with the x-gateway-* headers", async () => {
    const tracer: Tracer = { startSpan: broken, shutdown: async () => {} };
    const base = await gatewayWith({ cache: createInProcessCache(), tracer });
    const res = await request(`${base}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "sk_any", "x-gateway-upstream-key": "sk-ant-caller" },
      body: "{}",
    });
    const requestId = res.headers[gatewayResponseHeaders.requestId];
    expect(res.statusCode).toBe(500);
    expect(requestId).toMatch(/^req_/);
    expect(res.headers[gatewayResponseHeaders.mode]).toBe("byo");
    expect(res.headers[gatewayResponseHeaders.route]).toBe("primary");
    expect(res.headers[gatewayResponseHeaders.effectiveModel]).toBe("");
    expect(await res.body.json()).toEqual({
      type: "error",
      error: { type: "api_error", message: "Internal gateway error." },
      request_id: requestId,
    });
  });

  it("answers elsewhere (the model list) in provider B's format, with the x-gateway-* headers", async () => {
    const cache: ConfigCache = { ...createInProcessCache(), get: broken };
    const base = await gatewayWith({ cache, tracer: null });
    const res = await request(`${base}/v1/models`, { headers: { authorization: "Bearer sk_any" } });
    expect(res.statusCode).toBe(500);
    expect(res.headers[gatewayResponseHeaders.requestId]).toMatch(/^req_/);
    expect(res.headers[gatewayResponseHeaders.mode]).toBe("managed");
    expect(res.headers[gatewayResponseHeaders.route]).toBe("primary");
    expect(await res.body.json()).toEqual({
      error: {
        message: "Internal gateway error.",
        type: "server_error",
        param: null,
        code: "internal_error",
      },
    });
  });
});
