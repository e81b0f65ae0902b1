import { describe, expect, it } from "vitest";
import { downstreamResponseHeaders } from "../src/headers.ts";

describe("the response headers the client gets", () => {
  it("are the upstream's without connection-level ones, the gateway's own winning over an upstream's", () => {
    const upstream = {
      "content-type": "text/event-stream",
      connection: "keep-alive",
      "transfer-encoding": "chunked",
      "x-gateway-route": "from-an-upstream-gateway",
      "set-cookie": ["a=1", "b=2"],
      "x-absent": undefined,
    };
    const ours = { "x-gateway-request-id": "req_1", "x-gateway-route": "primary" };
    expect(downstreamResponseHeaders(upstream, ours)).toEqual({
      "content-type": "text/event-stream",
      "x-gateway-route": "primary",
      "set-cookie": ["a=1", "b=2"],
      "x-gateway-request-id": "req_1",
    });
  });
});
