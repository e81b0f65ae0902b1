import type { EventBus } from "@gateway/bus";
import { type CallEvent, callEventSchema, callsTopic, type Logger } from "@gateway/contracts";
import { apiKeys, calls, type Db } from "@gateway/db";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { callRow } from "./call-row.ts";

export interface CostingWorkerDeps {
  db: Db;
  bus: EventBus;
  log: Logger;
}

/**
 * `gateway.calls.v1` → one call row per request (idempotent by request id) and each key's
 * `last_used_at`, which the gateway never writes itself.
 */
export async function startCostingWorker({ db, bus, log }: CostingWorkerDeps): Promise<void> {
  await bus.subscribe({
    topic: callsTopic,
    group: "costing-worker",
    async handle(batch) {
      const events: CallEvent[] = [];
      for (const payload of batch) {
        const parsed = callEventSchema.safeParse(payload);
        if (parsed.success) events.push(parsed.data);
        else log.error("dropping malformed call event", { issues: parsed.error.issues.slice(0, 3) });
      }
      if (events.length === 0) return;
      await db.insert(calls).values(events.map(callRow)).onConflictDoNothing();
      for (const [keyId, usedAt] of latestUseByKey(events)) {
        await db
          .update(apiKeys)
          .set({ lastUsedAt: usedAt })
          .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, usedAt))));
      }
    },
  });
}

function latestUseByKey(events: CallEvent[]): Map<string, Date> {
  const latest = new Map<string, Date>();
  for (const event of events) {
    const at = new Date(event.received_at);
    const seen = latest.get(event.api_key_id);
    if (!seen || seen < at) latest.set(event.api_key_id, at);
  }
  return latest;
}
