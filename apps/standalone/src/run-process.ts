import { DirInUseError } from "@gateway/bus";
import { firstStartBanner } from "@gateway/control-plane";
import {
  createLogger,
  credentialsWithFiles,
  envOrExit,
  StartRefusedError,
  stopOnSignals,
} from "@gateway/runtime";
import { startTracing } from "@gateway/tracing";
import { parseEnv } from "./env.ts";
import { startStandalone } from "./standalone.ts";

const env = envOrExit(parseEnv);
const log = createLogger("standalone", { level: env.LOG_LEVEL });
// off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads the other OTEL_* settings itself
const tracer = await startTracing("standalone", process.env);
const app = await startStandalone(env, {
  log,
  credentials: credentialsWithFiles((name) => process.env[name]),
  tracer,
}).catch((error: unknown) => {
  // A data dir in use, a port taken or PostgreSQL refusing the process: said plainly, the data
  // dir left untouched. Anything else is unexpected and goes up with its stack.
  const inUse =
    error instanceof DirInUseError || error instanceof StartRefusedError
      ? error.message
      : (error as NodeJS.ErrnoException).code === "EADDRINUSE"
        ? `Port ${env.PORT} on ${env.HOST} is already in use: stop what listens there, or set PORT.`
        : null;
  if (!inUse) throw error;
  process.stderr.write(`${inUse}\n`);
  process.exit(1);
});
log.info("listening", { url: app.url, data_dir: env.GATEWAY_DATA_DIR });
// Printed once, here, and never stored: only the key's hash is kept.
if (app.firstStart) process.stdout.write(firstStartBanner(app.firstStart));

stopOnSignals(log, async () => {
  try {
    await app.stop();
  } finally {
    await tracer?.shutdown();
  }
});
