import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tracingEnabled } from "../src/index.ts";

const run = promisify(execFile);
const probe = fileURLToPath(new URL("./support/loaded-modules.ts", import.meta.url));
const app = (path: string) => new URL(`../../../apps/${path}`, import.meta.url).href;
// every app's code that runs per call or per event, as the processes load it
const apps = [
  app("standalone/src/standalone.ts"),
  app("gateway/src/gateway.ts"),
  app("capture-writer/src/capture-writer.ts"),
  app("costing-worker/src/costing-worker.ts"),
];

/** What a fresh process with `env` loads when it imports the apps and starts tracing. */
async function loadedWith(
  env: Record<string, string>,
): Promise<{ on: boolean; sdk: string[]; fromOurs: string[] }> {
  const { stdout } = await run(process.execPath, ["--experimental-strip-types", probe, ...apps], {
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  return JSON.parse(stdout);
}

describe("tracing off", () => {
  it("is the default: only OTEL_EXPORTER_OTLP_ENDPOINT turns it on, and OTEL_SDK_DISABLED=true off again", () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(
      tracingEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBe(false);
  });

  it("loads no module of the OpenTelemetry SDK, and our code imports no OpenTelemetry module at all", async () => {
    // (prom-client, behind /metrics, requires the OpenTelemetry API itself: a no-op without an SDK)
    const off = await loadedWith({});
    expect(off).toEqual({ on: false, sdk: [], fromOurs: [] });
  }, 30_000);

  it("loads the SDK only once the endpoint is set", async () => {
    // an endpoint nothing listens on: no span is made, so nothing is sent
    const on = await loadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(on.on).toBe(true);
    expect(on.sdk.some((url) => url.includes("@opentelemetry/sdk-trace"))).toBe(true);
    expect(on.fromOurs.some((import_) => import_.includes("/packages/tracing/src/otel.ts"))).toBe(true);
  }, 30_000);
});
