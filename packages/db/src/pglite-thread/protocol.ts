/** Messages between the main thread and the thread that owns PGlite. */
export type Request =
  | {
      id: number;
      op: "query";
      tx: number | null;
      sql: string;
      params: unknown[];
      rowMode: "array" | "object";
    }
  | { id: number; op: "exec"; tx: number | null; sql: string }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "close" };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** A database error as it crosses threads: message plus the fields callers branch on (`code`). */
export interface WireError {
  message: string;
  fields: Record<string, unknown>;
}
