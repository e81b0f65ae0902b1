import type { CursorCodec } from "./cursor.ts";

/**
 * Keyset pages ordered by id. Ids are prefix + ULID, so id order is creation order and a page
 * boundary stays put while rows are added or soft-deleted. The cursor carries the last id seen,
 * signed and bound to `scope` (e.g. one org's projects), so it cannot be replayed elsewhere.
 */
export function afterId(cursors: CursorCodec, scope: string, cursor: string | undefined): string | null {
  if (!cursor) return null;
  const [lastId] = cursors.decode(scope, cursor);
  return typeof lastId === "string" ? lastId : null;
}

/** Rows were fetched with `limit + 1`: the extra row only says whether another page exists. */
export function pageOf<T extends { id: string }>(
  rows: T[],
  limit: number,
  cursors: CursorCodec,
  scope: string,
): { items: T[]; cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, cursor: rows.length > limit && last ? cursors.encode(scope, [last.id]) : null };
}
