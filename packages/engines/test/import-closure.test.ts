import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const hook = fileURLToPath(new URL("./support/list-packages.ts", import.meta.url));
const main = (app: string) => fileURLToPath(new URL(`../../../apps/${app}/src/main.ts`, import.meta.url));

/**
 * The packages a process loads from node_modules when it runs `entry`: an app's main, run with
 * no environment (or only `settings`), loads and runs every module it imports statically, then
 * exits on the missing or invalid settings (before any engine is opened).
 */
async function packagesOf(entry: string, settings: Record<string, string> = {}): Promise<string[]> {
  const { stdout } = await run(process.execPath, ["--experimental-strip-types", "--import", hook, entry], {
    env: { PATH: process.env.PATH ?? "", ...settings },
  }).catch((failed: { stdout: string }) => failed);
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as string[];
}

// (postgres.js itself, like node:sqlite, is imported when `openDb` opens that store:
// what a split app loads up front of its database is drizzle)
const drivers = {
  postgres: ["drizzle-orm"],
  bullmq: ["bullmq"],
  s3: ["@aws-sdk/client-s3"],
  redis: ["ioredis"],
  kafka: ["kafkajs"],
};

// Each app loads the drivers of the engines it opens, and none of the others': the gateway never
// opens PostgreSQL, S3 or BullMQ.
const apps: Record<string, { opens: (keyof typeof drivers)[]; never: (keyof typeof drivers)[] }> = {
  gateway: { opens: ["redis", "kafka"], never: ["postgres", "bullmq", "s3"] },
  "capture-writer": { opens: ["postgres", "s3", "kafka"], never: ["bullmq", "redis"] },
  "costing-worker": { opens: ["postgres", "bullmq", "redis", "kafka"], never: ["s3"] },
  // it queues the costing worker's re-pricing jobs (a producer: it runs none)
  "control-plane": { opens: ["postgres", "redis", "s3", "bullmq"], never: ["kafka"] },
};

describe("each split app's import closure", () => {
  for (const [app, { opens, never }] of Object.entries(apps)) {
    it(`${app} loads the drivers of ${opens.join(", ")} and not those of ${never.join(", ")}`, async () => {
      const loaded = await packagesOf(main(app));
      for (const engine of opens) expect(loaded).toEqual(expect.arrayContaining(drivers[engine]));
      const strays = never.flatMap((engine) => drivers[engine]).filter((name) => loaded.includes(name));
      expect(strays).toEqual([]);
    }, 30_000);
  }
});

// The all-in-one process opens none of the split deployment's engines: their drivers (and the
// memory their code takes) stay out of it, and so does PGlite, read only to upgrade a data dir an
// older release wrote. Every setting has a default there, so an invalid one makes it exit once its
// modules are loaded.
it("the all-in-one process loads no driver of the split deployment's engines, nor PGlite", async () => {
  const loaded = await packagesOf(main("standalone"), { PORT: "not-a-port" });
  expect(loaded).toContain("drizzle-orm");
  const strays = [
    ...drivers.bullmq,
    ...drivers.s3,
    ...drivers.redis,
    ...drivers.kafka,
    "postgres",
    "@electric-sql/pglite",
  ];
  expect(loaded.filter((name) => strays.includes(name))).toEqual([]);
}, 30_000);

// The logger, metrics and HTTP server are @gateway/runtime's: the contracts every package shares
// load nothing else.
it("@gateway/contracts loads zod and ulid only", async () => {
  const contracts = fileURLToPath(new URL("../../contracts/src/index.ts", import.meta.url));
  expect(await packagesOf(contracts)).toEqual(["ulid", "zod"]);
}, 30_000);
