// `pnpm knip` (run by .ci/run next to `pnpm check`): a file, dependency or export nobody uses fails CI.
//
// The workspaces are pnpm-workspace.yaml's: apps/*, packages/* and bench. Knip starts from each
// one's entry files and reports whatever they do not reach. Besides the entries listed below it
// finds these on its own (listing them again only earns a "redundant entry" hint):
// - src/main.ts and src/index.ts (its defaults): each app runs as `node src/main.ts` (its package.json
//   `start`, the Dockerfile's CMD, bench/src/app-command.ts, the tests that spawn it);
// - every package.json `exports` target: a package's public API (src/index.ts, the engine adapters'
//   subpaths, @gateway/tracing/testing), imported by the apps, bench and the tests;
// - every file a package.json script runs: the apps' `start`, testkit's `mock-providers`
//   (src/bin/mock-providers.ts, which bench/src/run.ts also starts by path), the root's `bench*`;
// - vitest.config.ts, drizzle.config.ts, and the test files (see `tests` below).
//
// Every workspace is private: a package's exports serve this repository only, so an export of an
// entry file (a package's index, most of them `export *` of every file) that nothing here imports
// is dead too (`includeEntryExports`). Deliberate API kept without a user today is tagged
// `/** … @public */` where it is exported, saying why (testkit's option and record types, the
// event contract's types in @gateway/contracts).
import type { KnipConfig } from "knip";

// The root vitest.config.ts runs apps/*/test/**/*.test.ts and packages/*/test/**/*.test.ts: per
// workspace, test/**/*.test.ts (knip's default would take any *.test.ts or *.bench.ts anywhere).
const tests = { entry: ["test/**/*.test.ts"] };

const config: KnipConfig = {
  // see above: a package's index exports are checked like any other file's
  includeEntryExports: true,
  workspaces: {
    ".": {
      // .ci/run starts it by path: `node --experimental-strip-types .ci/vitest-report.ts summary|crashed …`;
      // infra/secure/smoke.sh and infra/secure/kafka.sh start the secured engines' checks by path
      entry: [".ci/vitest-report.ts", "infra/secure/smoke/*.mjs"],
    },
    "apps/*": { vitest: tests },
    // the console's one client script, which src/console/assets.ts reads and serves by path
    "apps/control-plane": { vitest: tests, entry: ["src/console/assets/console.js"] },
    "packages/*": { vitest: tests },
    // the SQLite schema's drizzle-kit config, which `pnpm --filter @gateway/db generate` passes by --config
    "packages/db": { vitest: tests, drizzle: { config: ["drizzle.config.ts", "drizzle.sqlite.config.ts"] } },
    bench: {
      // bench/src/run.ts starts the baseline proxy by path: `node … bench/src/minimal-proxy.ts`;
      // bench/consumers/consumer-cost.ts the capture writer of one object per call
      entry: ["src/minimal-proxy.ts", "consumers/per-call-capture-writer.ts"],
    },
  },
  // Debian's redis-server (infra/redis.sh installs it): the Redis tests each spawn their own.
  // util-linux's taskset: `BENCH_PIN=1 pnpm bench` pins its processes to cores with it.
  // openssl: the engine settings' tests make a throwaway CA with it.
  // coreutils' mkfifo: the standalone's probes test holds its start on a named pipe.
  ignoreBinaries: ["redis-server", "taskset", "openssl", "mkfifo"],
};

export default config;
