import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";

/**
 * The process's one SQLite connection: prepared statements cached by their text, and the turn
 * that a transaction holds across its awaits (docs/decisions.md, "One connection, its turns taken
 * in order").
 */
export class SqliteConnection {
  private readonly statements = new Map<string, StatementSync>();
  private readonly arrayStatements = new Map<string, StatementSync>();
  /** Settles when the transaction that holds the turn ends; null while nobody holds it. */
  private held: Promise<void> | null = null;
  readonly raw: DatabaseSync;

  constructor(raw: DatabaseSync) {
    this.raw = raw;
  }

  /** A prepared statement, prepared once per text; rows come as objects, or as arrays with `arrays`. */
  statement(text: string, arrays = false): StatementSync {
    const cache = arrays ? this.arrayStatements : this.statements;
    let statement = cache.get(text);
    if (!statement) {
      statement = this.raw.prepare(text);
      if (arrays) statement.setReturnArrays(true);
      cache.set(text, statement);
    }
    return statement;
  }

  /**
   * Runs `work` holding the turn: every other caller waits until it ends. The check and the
   * taking of the turn happen in one synchronous step, so two callers never both take it.
   */
  async holdTurn<T>(work: () => T | PromiseLike<T>): Promise<T> {
    while (this.held) await this.held;
    let release = () => {};
    this.held = new Promise((resolve) => {
      release = resolve;
    });
    try {
      return await work();
    } finally {
      this.held = null;
      release();
    }
  }

  /**
   * What drizzle's better-sqlite3 session calls on its client (`prepare`, then the statement's
   * `run`, `all`, `get` and `raw()`), over `node:sqlite`: drizzle's SQLite query builder without
   * the better-sqlite3 package.
   */
  drizzleClient() {
    return {
      prepare: (text: string) => {
        const rows = this.statement(text);
        const arrays = () => this.statement(text, true);
        return {
          run: (...params: SQLInputValue[]) => rows.run(...params),
          all: (...params: SQLInputValue[]) => rows.all(...params),
          get: (...params: SQLInputValue[]) => rows.get(...params),
          raw: () => ({
            all: (...params: SQLInputValue[]) => arrays().all(...params),
            get: (...params: SQLInputValue[]) => arrays().get(...params),
          }),
        };
      },
    };
  }
}
