import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite, query } from "./dialect.ts";
import type { idempotencyKeys } from "./schema/idempotency-keys.ts";
import { dbNow } from "./sql-rows.ts";

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

type Keys = typeof idempotencyKeys;

const row = (k: Keys, t: IdempotencyTarget) =>
  and(eq(k.scope, t.scope), eq(k.route, t.route), eq(k.key, t.key));

/** Rows created more than `seconds` ago, by the database's clock. */
function olderThan(db: Db, k: Keys, seconds: number): SQL {
  return isSqlite(db)
    ? sql`${k.createdAt} < ${dbNow(db)} - ${seconds * 1000}`
    : sql`${k.createdAt} < now() - (${seconds}::int * interval '1 second')`;
}

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
    const [claimed] = await query(db, (orm, { idempotencyKeys: k }) =>
      orm
        .insert(k)
        .values({ ...target, ...request })
        .onConflictDoUpdate({
          target: [k.scope, k.route, k.key],
          set: { ...request, status: null, response: null, createdAt: sql`${dbNow(db)}` },
          setWhere: sql`${olderThan(db, k, times.retentionSeconds)} or (${isNull(k.status)}
            and ${k.requestHash} = excluded.request_hash
            and ${olderThan(db, k, times.abandonedAfterSeconds)})`,
        })
        .returning({ owner: k.owner }),
    );
    if (claimed) return { kind: "claimed" };
    const [held] = await query(db, (orm, { idempotencyKeys: k }) =>
      orm.select().from(k).where(row(k, target)),
    );
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
  await query(db, (orm, { idempotencyKeys: k }) =>
    orm
      .update(k)
      .set(answer)
      .where(and(row(k, target), eq(k.owner, owner), isNull(k.status))),
  );
}

/** Frees a key whose request failed, so that a retry runs it again. */
export async function releaseIdempotencyKey(db: Db, target: IdempotencyTarget, owner: string): Promise<void> {
  await query(db, (orm, { idempotencyKeys: k }) =>
    orm.delete(k).where(and(row(k, target), eq(k.owner, owner), isNull(k.status))),
  );
}

/**
 * Deletes up to 100 expired rows, oldest first. Run before each claim: every new row pays for
 * deleting older ones, so the table holds about one retention's worth of keys without a timer of
 * its own.
 */
export async function sweepIdempotencyKeys(db: Db, retentionSeconds: number): Promise<void> {
  await query(db, (orm, { idempotencyKeys: k }) => {
    const expired = orm
      .select({ scope: k.scope, route: k.route, key: k.key })
      .from(k)
      .where(olderThan(db, k, retentionSeconds))
      .orderBy(k.createdAt)
      .limit(100);
    return orm.delete(k).where(sql`(${k.scope}, ${k.route}, ${k.key}) in ${expired}`);
  });
}
