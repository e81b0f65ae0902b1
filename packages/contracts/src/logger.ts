/** Structured logs, one JSON object per line. Never pass a credential in `fields`. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  component: string,
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const emit = (level: string, message: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, component, message, ...fields })}\n`);
  return {
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
