import type { GatewayConfig } from "../../src/config.ts";

/** A gateway's settings for tests that send nothing upstream or only to a local one: small and quick. */
export const testGatewayConfig: GatewayConfig = {
  providerAUrl: "http://127.0.0.1:9",
  providerBUrl: "http://127.0.0.1:9",
  maxBodyBytes: 1024,
  answerMemoryBytes: 1024,
  connectTimeoutMs: 1_000,
  firstByteTimeoutMs: 1_000,
  idleTimeoutMs: 1_000,
  accessLog: false,
};
