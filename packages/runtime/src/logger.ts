import type { Logger } from "@gateway/contracts";
import { pino } from "pino";
import { z } from "zod";

const logLevels = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

/** For every app's env schema: a bad `LOG_LEVEL` stops the process at start, naming it. */
export const logEnv = { LOG_LEVEL: z.enum(logLevels).default("info") };

/**
 * A pino logger for `component` at `level` (the parsed env's `LOG_LEVEL`: a logger is made once
 * the env is valid, never from the raw environment), writing to stdout (or to `write`, for tests).
 * Writes are asynchronous, never blocking the request path on a slow reader; pino flushes what is
 * pending when the process exits (a SIGKILL loses the lines of its last write).
 */
export function createLogger(
  component: string,
  { level, write }: { level: LogLevel; write?: (line: string) => void },
): Logger {
  const logger = pino(
    {
      level,
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
