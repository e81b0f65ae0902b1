import { pino } from "pino";
import { z } from "zod";

/**
 * Structured logs, one JSON object per line: `time`, `level`, `component`, the fields, `message`.
 * An `error` field that holds an Error keeps its type, message and stack. Never pass a
 * credential, a body or a prompt in `fields`.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const logLevels = ["debug", "info", "warn", "error", "silent"] as const;

/** For every app's env schema: a bad `LOG_LEVEL` stops the process at start, naming it. */
export const logEnv = { LOG_LEVEL: z.enum(logLevels).default("info") };

/**
 * A pino logger for `component`, at `LOG_LEVEL` (default `info`), writing to stdout (or to
 * `write`, for tests). Writes are asynchronous, never blocking the request path on a slow
 * reader; pino flushes what is pending when the process exits (a SIGKILL loses the lines of its
 * last write).
 */
export function createLogger(
  component: string,
  write?: (line: string) => void,
  level: string = process.env.LOG_LEVEL ?? "info",
): Logger {
  const logger = pino(
    {
      level: (logLevels as readonly string[]).includes(level) ? level : "info",
      base: { component },
      messageKey: "message",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.err, failure: pino.stdSerializers.err },
    },
    write ? { write } : pino.destination({ dest: 1, sync: false }),
  );
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
