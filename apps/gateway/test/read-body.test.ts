import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { type BodyResult, readBody } from "../src/read-body.ts";

describe("readBody", () => {
  it("settles as aborted when the caller left before reading began", async () => {
    const settled = new Promise<BodyResult>((resolve) => {
      const server = createServer((req) => {
        // The gateway reads the body only after looking up the key; the caller leaves meanwhile.
        setTimeout(
          () =>
            readBody(req, 1024)
              .then(resolve)
              .finally(() => server.close()),
          150,
        );
      }).listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        const client = request({ port, method: "POST", headers: { "content-length": "100" } });
        client.on("error", () => {});
        client.write("partial");
        setTimeout(() => client.destroy(), 30);
      });
    });
    expect(await settled).toEqual({ ok: false, reason: "aborted" });
  });
});
