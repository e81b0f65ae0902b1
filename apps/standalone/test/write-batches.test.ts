import { DatabaseSync, StatementSync } from "node:sqlite";
import { callsTopic } from "@gateway/contracts";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Harness, startHarness, untilCosted } from "./harness.ts";

const calls = 200;

/**
 * The embedded store's write path: the in-process consumers take the calls of one turn in batches
 * of up to 128 (the all-in-one's `maxBatch`) and write each batch in one SQLite transaction (call
 * rows with their capture index rows), never a commit per call (docs/decisions.md, "The embedded
 * store writes in batches"). Seen at the driver: which transaction each row's insert ran in.
 */
describe("the standalone process's writes to SQLite", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h?.close();
  });

  it("stores the call rows, and the capture index rows, of one turn's 200 calls in two transactions", async () => {
    let transaction = 0;
    let open = false;
    const exec = DatabaseSync.prototype.exec;
    vi.spyOn(DatabaseSync.prototype, "exec").mockImplementation(function (this: DatabaseSync, text) {
      if (/^begin/i.test(text)) [transaction, open] = [transaction + 1, true];
      if (/^(commit|rollback)$/i.test(text)) open = false;
      return exec.call(this, text);
    });
    // the transaction of each row inserted, by table (0: none, a commit of its own)
    const inserts = new Map<string, number[]>();
    const run = StatementSync.prototype.run;
    vi.spyOn(StatementSync.prototype, "run").mockImplementation(function (this: StatementSync, ...params) {
      const table = /^insert into "(\w+)"/.exec(this.sourceSQL)?.[1];
      if (table) inserts.set(table, [...(inserts.get(table) ?? []), open ? transaction : 0]);
      return run.apply(this, params);
    });

    const { bus } = h.gateway.internals;
    const workload = (await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`))
      .json.workloads[0].id as string;
    const body = (data: string) => ({ encoding: "utf8" as const, data });
    const events = Array.from({ length: calls }, () =>
      testCallEvent({
        org_id: h.orgId,
        project_id: h.projectId,
        workload_id: workload,
        usage: plainUsage(10, 5),
        capture: {
          request_headers: {},
          response_headers: {},
          request_body: body('{"messages":[]}'),
          response_body: body('{"choices":[]}'),
        },
      }),
    );
    // in one turn, as the gateway publishes the calls it answered at once
    for (const event of events) bus.publish(callsTopic, event.request_id, event);
    await untilCosted(
      h.gateway,
      events.map((e) => e.request_id),
    );
    await bus.flush();

    const transactionsOf = (table: string) => {
      const rows = inserts.get(table) ?? [];
      expect(rows, table).toHaveLength(calls);
      expect(rows, `${table}: a row committed on its own`).not.toContain(0);
      return new Set(rows).size;
    };
    // 128 and 72
    expect(transactionsOf("calls")).toBe(2);
    expect(transactionsOf("capture_index")).toBe(2);
  });
});
