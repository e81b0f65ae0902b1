/**
 * Structured logs, one JSON object per line: `time`, `level`, `component`, the fields, `message`.
 * An `error` field that holds an Error keeps its type, message and stack. Never pass a
 * credential, a body or a prompt in `fields`. Every app makes its own (`@gateway/runtime`'s
 * `createLogger`) and hands it to the packages it uses.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
