import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import type { SplitDeployment } from "./deployments.ts";
import type { EngineSet } from "./engine-sets.ts";
import { createTestOrg } from "./scenarios.ts";
import { chatBody, gatewayCall, within } from "./traffic.ts";

/**
 * The costing jobs run: a call to a model no price row covers is recorded and priced `no_price`
 * (the costing worker's pricing job on BullMQ), and once the operator adds a price for the model
 * the call is re-priced by the job the control plane queues and the costing worker takes.
 */
export async function expectRepricedOnPriceChange(d: SplitDeployment<EngineSet>) {
  const org = await createTestOrg(d);
  const model = `e2e-reprice-${randomBytes(3).toString("hex")}`;
  const call = await gatewayCall(d.gateways[0]!, org.apiKey, "/v1/chat/completions", {
    ...chatBody(0),
    model,
  });
  expect(call.status).toBe(200);
  const reason = async () => {
    const [row] = await d.sql<{ unpriced_reason: string | null }[]>`
      select unpriced_reason from calls where request_id = ${call.requestId}`;
    return row ? row.unpriced_reason : undefined;
  };
  // recorded and priced by the costing worker while no row prices its model
  await within(30_000, async () => ((await reason()) === "no_price" ? true : undefined));
  const added = await d.cp("POST", "/operator/v1/prices", {
    model,
    effective_from: "2000-01-01T00:00:00Z",
    input_usd_per_mtok: "1",
    cache_write_5m_usd_per_mtok: "0",
    cache_write_1h_usd_per_mtok: "0",
    cache_read_usd_per_mtok: "0",
    output_usd_per_mtok: "1",
  });
  expect(added.status).toBe(201);
  expect(added.json.repricing).toBe("queued");
  await within(30_000, async () => ((await reason()) === null ? true : undefined));
  // the costing worker took the job from BullMQ (the control plane only enqueues); its log line
  // follows the commit, so it may reach this process a moment after the row reads priced
  const ran = await within(10_000, async () => {
    const lines = d.apps.costingWorker
      .output()
      .split("\n")
      .filter((line) => line.includes('"message":"re-priced calls"') && line.includes(`"model":"${model}"`));
    return lines.length > 0 ? lines : undefined;
  });
  expect(ran).toHaveLength(1);
  expect(ran[0]).toContain('"changed":1');
}
