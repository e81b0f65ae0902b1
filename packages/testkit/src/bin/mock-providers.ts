/**
 * Starts both provider mocks and prints their base URLs as one JSON line, e.g. for a benchmark:
 *   node packages/testkit/src/bin/mock-providers.ts [--port-a N] [--port-b N] [--no-record] [--fresh-ids]
 * Runs until SIGTERM or SIGINT.
 */
import { parseArgs } from "node:util";
import { startMockProviderA } from "../provider-a/provider-a.ts";
import { startMockProviderB } from "../provider-b/provider-b.ts";
import type { MockProvider } from "../types.ts";

function port(value: string | undefined, flagName: string): number {
  if (value === undefined) return 0;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
    throw new Error(`${flagName} must be a port number, got ${JSON.stringify(value)}`);
  }
  return parsed;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      "port-a": { type: "string" },
      "port-b": { type: "string" },
      // `--no-record`: long benchmark runs would otherwise keep every request body in memory.
      record: { type: "boolean", default: true },
      // `--fresh-ids`: no two answers share an id, as in real traffic (`MockProviderOptions.freshIds`).
      "fresh-ids": { type: "boolean", default: false },
    },
    allowNegative: true,
    strict: true,
  });
  const options = { record: values.record, freshIds: values["fresh-ids"] };
  const started: MockProvider[] = [];
  const closeAll = () => Promise.all(started.map((provider) => provider.close()));
  try {
    started.push(await startMockProviderA({ port: port(values["port-a"], "--port-a"), ...options }));
    started.push(await startMockProviderB({ port: port(values["port-b"], "--port-b"), ...options }));
  } catch (error) {
    await closeAll();
    throw error;
  }
  const [providerA, providerB] = started;

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    closeAll().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);

  process.stdout.write(`${JSON.stringify({ providerA: providerA?.url, providerB: providerB?.url })}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
