import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "@gateway/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { type Readiness, serveProbes } from "../src/probes.ts";

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** The probe listener on a free port, ready as `readiness()` says when asked. */
async function probesOn(readiness: () => Promise<Readiness>, metrics = createMetrics()) {
  server = await serveProbes({
    app: "unit",
    port: 0,
    host: "127.0.0.1",
    log: silentLogger,
    metrics,
    readiness,
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path: string, method = "GET") => {
    const res = await fetch(base + path, { method });
    return `${res.status} ${await res.text()}`;
  };
}

describe("the probe listener", () => {
  it("answers /livez always and /readyz from the app's readiness, asked at each probe", async () => {
    let now: Readiness = { ready: false, reason: "no_partitions" };
    const probe = await probesOn(async () => now);
    expect(await probe("/livez")).toBe('200 {"status":"alive"}');
    expect(await probe("/readyz")).toBe('503 {"status":"no_partitions"}');
    now = { ready: true };
    expect(await probe("/readyz?verbose")).toBe('200 {"status":"ready"}');
  });

  it("is not ready when the readiness check fails, and still alive", async () => {
    const probe = await probesOn(async () => {
      throw new Error("database gone");
    });
    expect(await probe("/readyz")).toBe('503 {"status":"Error: database gone"}');
    expect(await probe("/livez")).toBe('200 {"status":"alive"}');
  });

  it("refuses other methods and paths", async () => {
    const probe = await probesOn(async () => ({ ready: true }));
    expect(await probe("/readyz", "POST")).toBe('405 {"error":"GET only"}');
    expect(await probe("/healthz")).toBe('404 {"error":"only /livez and /readyz"}');
  });

  it("serves /metrics beside them, where readiness shows as app_ready", async () => {
    let now: Readiness = { ready: true };
    const probe = await probesOn(async () => now);
    expect(await probe("/metrics")).toContain('app_ready{app="unit"} 1');
    now = { ready: false, reason: "draining" };
    expect(await probe("/metrics")).toContain('app_ready{app="unit"} 0');
  });
});
