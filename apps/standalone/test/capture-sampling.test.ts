import { callRows, captureIndexRows } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "./harness.ts";

/** `capture_sample_rate` applies per request; `capture_enabled: false` captures nothing; calls are recorded either way. */
describe("capture sampling", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  async function workload(name: string, patch: object): Promise<string> {
    const created = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name,
    });
    const patched = await h.cp(
      "PATCH",
      `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${created.json.id}`,
      patch,
    );
    expect(patched.status).toBe(200);
    return created.json.id;
  }

  async function send(name: string, count: number) {
    for (let i = 0; i < count; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${h.apiKey}`,
              "x-gateway-upstream-key": "sk-up",
              "x-gateway-workload": name,
            },
            body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
          });
          expect(res.status).toBe(200);
          await res.text();
        }),
      );
    }
  }

  const rowsOf = (read: typeof callRows | typeof captureIndexRows, workloadId: string) =>
    read(h.gateway.internals.db, { workloadId });

  it("a sample rate of 0.5 captures about half, and every call is still recorded", async () => {
    const id = await workload("half", { capture_sample_rate: 0.5 });
    await send("half", 400);
    await eventually(async () => ((await rowsOf(callRows, id)).length === 400 ? true : undefined), 10_000);
    // The capture writer runs beside the costing worker: wait until its count settles.
    let captured = -1;
    for (let settled = (await rowsOf(captureIndexRows, id)).length; settled !== captured; ) {
      captured = settled;
      await new Promise((r) => setTimeout(r, 300));
      settled = (await rowsOf(captureIndexRows, id)).length;
    }
    console.log(`capture sampling: ${captured}/400 captured at capture_sample_rate 0.5`);
    // 400 draws at p = 0.5: sd 10, so ±50 is five standard deviations.
    expect(Math.abs(captured - 200)).toBeLessThanOrEqual(50);
  });

  it("capture_enabled false captures nothing, and every call is still recorded", async () => {
    const id = await workload("dark", { capture_enabled: false });
    await send("dark", 40);
    await eventually(async () => ((await rowsOf(callRows, id)).length === 40 ? true : undefined), 10_000);
    expect(await rowsOf(captureIndexRows, id)).toHaveLength(0);
  });
});
