import { describe, expect, it } from "vitest";
import { startControlPlane } from "./support/harness.ts";

describe("control plane drain", () => {
  it("answers /readyz 503 while it serves on through the drain delay, then stops listening", async () => {
    const h = await startControlPlane({ drain: { delayMs: 2_000, timeoutMs: 5_000 } });
    const probe = async (path: string) => {
      const res = await fetch(h.url + path);
      return `${res.status} ${((await res.json()) as { status: string }).status}`;
    };
    try {
      expect(await probe("/readyz")).toBe("200 ready");
      let stopped = false;
      const stopping = h.stop().then(() => {
        stopped = true;
      });
      expect(await probe("/readyz")).toBe("503 draining");
      expect(await probe("/livez")).toBe("200 alive");
      // real work is still served while the load balancer takes it out of rotation
      const projects = await h.cp("GET", `/admin/v1/orgs/${h.orgId}/projects`);
      expect(projects.status).toBe(200);
      expect(stopped).toBe(false);
      await stopping;
      await expect(fetch(`${h.url}/livez`)).rejects.toThrow("fetch failed");
    } finally {
      await h.close();
    }
  }, 30_000);
});
