import type { EventBus } from "@gateway/bus";
import { type Db, databaseAnswers } from "@gateway/db";
import type { Readiness } from "@gateway/runtime";

/** A consumer is ready while it holds partitions to consume and its database answers. */
export function consumerReadiness(bus: EventBus, db: Db): () => Promise<Readiness> {
  return async () => {
    if (!bus.consuming()) return { ready: false, reason: "no_partitions" };
    if (!(await databaseAnswers(db, 1_000))) return { ready: false, reason: "database_unreachable" };
    return { ready: true };
  };
}
