import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

const include = ["apps/*/test/**/*.test.ts", "packages/*/test/**/*.test.ts"];

// The end-to-end files that run alone, one after another, with no other test file beside them.
// They drive whole deployments (a gateway process, or two gateways, a control plane and the
// consumers on the real engines) and measure them: a rate limit spent at ~60 calls/s within 5 %,
// drains and fault recoveries within their deadlines. Sharing the two cores of CI with another
// test file made them fail (a burst not spent in time, a socket closed while Redis was stopped).
const alone = [
  "apps/standalone/test/e2e/kafka-failover.e2e.test.ts",
  "apps/standalone/test/e2e/split.e2e.test.ts",
  "apps/standalone/test/e2e/secure.e2e.test.ts",
  "apps/standalone/test/e2e/standalone.e2e.test.ts",
  "apps/standalone/test/e2e/redis-failover.e2e.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two groups, run one after the other (sequence.groupOrder, lowest first): first the files
    // above, one at a time; then every other file, at least two at a time (vitest's default is
    // one worker per core but one, which is a single worker on a 2-core CI machine). The JSON
    // report names each file by its path, as without projects.
    projects: [
      {
        extends: true,
        test: { name: "alone", include: alone, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: "parallel",
          include,
          exclude: [...configDefaults.exclude, ...alone],
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
