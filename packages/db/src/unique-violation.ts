/**
 * Whether `error` is a unique violation: SQLSTATE 23505 on PostgreSQL, extended result
 * code SQLITE_CONSTRAINT_UNIQUE (2067) or _PRIMARYKEY (1555) on SQLite (drizzle wraps it in `cause`).
 */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Object; e = (e as { cause?: unknown }).cause) {
    const { code, errcode } = e as { code?: unknown; errcode?: unknown };
    if (code === "23505" || errcode === 2067 || errcode === 1555) return true;
  }
  return false;
}
