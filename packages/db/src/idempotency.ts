import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { idempotencyKeys } from "./schema/idempotency-keys.ts";

/** Whose key, on which route: keys of different scopes or routes never meet. */
export interface IdempotencyTarget {
  scope: string;
  route: string;
  key: string;
}

export interface IdempotencyTimes {
  /** A row older than this is as good as absent: its key may start over. */
  retentionSeconds: number;
  /**
   * A first request still unfinished after this is taken to have died with its process: the same
   * request may take its key over (else the key would be stuck until the retention ends).
   */
  abandonedAfterSeconds: number;
}

/** What a request finds when it claims a key. */
export type IdempotencyClaim =
  | { kind: "claimed" }
  | { kind: "other_request" }
  | { kind: "in_progress" }
  | { kind: "completed"; status: number; response: string };

const row = (t: IdempotencyTarget) =>
  and(eq(idempotencyKeys.scope, t.scope), eq(idempotencyKeys.route, t.route), eq(idempotencyKeys.key, t.key));

const olderThan = (seconds: number): SQL =>
  sql`${idempotencyKeys.createdAt} < now() - (${seconds}::int * interval '1 second')`;

/**
 * Claims `target` for one request (its hash and its request id as `owner`), or says what holds it:
 * the first answer, another request's hash, or the first request still running. An expired row, or
 * one abandoned by the same request, is taken over in the same atomic upsert, so two requests
 * racing for a key never both win.
 */
export async function claimIdempotencyKey(
  db: Db,
  target: IdempotencyTarget,
  request: { requestHash: string; owner: string },
  times: IdempotencyTimes,
): Promise<IdempotencyClaim> {
  // a row released between the upsert and the read below is claimed again; after a few such
  // races (a key hammered by failing requests) the caller is asked to retry
  for (let attempt = 0; attempt < 3; attempt++) {
    const [claimed] = await db
      .insert(idempotencyKeys)
      .values({ ...target, ...request })
      .onConflictDoUpdate({
        target: [idempotencyKeys.scope, idempotencyKeys.route, idempotencyKeys.key],
        set: { ...request, status: null, response: null, createdAt: sql`now()` },
        setWhere: sql`${olderThan(times.retentionSeconds)} or (${isNull(idempotencyKeys.status)}
          and ${idempotencyKeys.requestHash} = excluded.request_hash
          and ${olderThan(times.abandonedAfterSeconds)})`,
      })
      .returning({ owner: idempotencyKeys.owner });
    if (claimed) return { kind: "claimed" };
    const [held] = await db.select().from(idempotencyKeys).where(row(target));
    if (!held) continue;
    if (held.requestHash !== request.requestHash) return { kind: "other_request" };
    // both are written at once, by the request that completes
    if (held.status === null || held.response === null) return { kind: "in_progress" };
    return { kind: "completed", status: held.status, response: held.response };
  }
  return { kind: "in_progress" };
}

/** Stores the first answer of the request that holds the key (a request that lost it stores nothing). */
export async function completeIdempotencyKey(
  db: Db,
  target: IdempotencyTarget,
  owner: string,
  answer: { status: number; response: string },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set(answer)
    .where(and(row(target), eq(idempotencyKeys.owner, owner), isNull(idempotencyKeys.status)));
}

/** Frees a key whose request failed, so that a retry runs it again. */
export async function releaseIdempotencyKey(db: Db, target: IdempotencyTarget, owner: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(row(target), eq(idempotencyKeys.owner, owner), isNull(idempotencyKeys.status)));
}

/**
 * Deletes up to 100 expired rows, oldest first. Run before each claim: every new row pays for
 * deleting older ones, so the table holds about one retention's worth of keys without a timer of
 * its own.
 */
export async function sweepIdempotencyKeys(db: Db, retentionSeconds: number): Promise<void> {
  const expired = db
    .select({ scope: idempotencyKeys.scope, route: idempotencyKeys.route, key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(olderThan(retentionSeconds))
    .orderBy(idempotencyKeys.createdAt)
    .limit(100);
  await db
    .delete(idempotencyKeys)
    .where(sql`(${idempotencyKeys.scope}, ${idempotencyKeys.route}, ${idempotencyKeys.key}) in ${expired}`);
}
