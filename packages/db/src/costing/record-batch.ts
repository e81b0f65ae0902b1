import type { NewCaptureIndexRow } from "../captures.ts";
import type { Db } from "../client.ts";
import { inTransaction } from "../dialect.ts";
import { insertJsonRows } from "../json-rows.ts";
import { type KeyUse, recordKeyUses } from "../key-use.ts";
import { withDayPartitions } from "../retention/day-partitions.ts";
import { captureIndex } from "../schema/index.ts";
import { addToSpend, priceBeforeInsert } from "./price-at-insert.ts";
import { type CallInsert, insertCalls } from "./record-calls.ts";
import { type SpendScope, scopesOfRows } from "./spend-totals.ts";

/** What one batch of call events leaves in the store. */
export interface CallBatch {
  calls: CallInsert[];
  /** Index rows of the batch's captures, their bytes already written. */
  captures: NewCaptureIndexRow[];
  keyUses: KeyUse[];
}

/**
 * A batch of call events stored in one transaction, as the all-in-one process stores them: the
 * captures' index rows, the call rows priced before they go in (`priceBeforeInsert`: a reader
 * never sees them `pricing_pending`) with their rollups and histograms, their spend, and each
 * key's last use. One commit per batch, where the split deployment's consumers make four (index,
 * calls, key uses, pricing job). Idempotent by request id like its parts: a batch delivered again
 * inserts, and so adds to the sums, nothing twice. Returns the scopes (keys, projects, workloads)
 * whose spend the batch's new costs changed, for the spend publisher.
 */
export async function recordCallBatch(db: Db, batch: CallBatch): Promise<{ spentIn: SpendScope[] }> {
  const { calls, captures, keyUses } = batch;
  const store = () =>
    inTransaction(db, async (tx) => {
      if (captures.length > 0) await insertJsonRows(tx, captureIndex, captures, "requestId");
      const inserted = await insertCalls(tx, await priceBeforeInsert(tx, calls, new Date()));
      const costed = inserted.filter((c) => c.customerCostUsd != null);
      await addToSpend(tx, costed);
      await recordKeyUses(tx, keyUses);
      return { spentIn: scopesOfRows(costed) };
    });
  return withDayPartitions(
    db,
    "capture_index",
    () => captures.map((c) => c.receivedAt),
    () => withDayPartitions(db, "calls", () => calls.map((c) => c.receivedAt), store),
  );
}
