import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callsTopic, silentLogger } from "@gateway/contracts";
import { openDb, runMigrations } from "@gateway/db";
import { captureIndexRows, freshPostgresDatabase } from "@gateway/db/testing";
import { openKafkaBus } from "@gateway/engines/kafka";
import { eventually, localEngines, testCallEvent } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { startCaptureWriter } from "../src/capture-writer.ts";
import { captureWriterDeps } from "../src/deps.ts";
import { parseCaptureWriterEnv } from "../src/env.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const postgresUrl = process.env.GATEWAY_TEST_POSTGRES_URL;

/** Events published one at a time, this far apart: spread over 1.25 s, well within the wait. */
const events = 6;
const apartMs = 250;

/**
 * The capture writer's fetch wait (GATEWAY_CAPTURE_FETCH_*), through the writer's own settings,
 * engines and Kafka consumer, on the shared Kafka, S3 and PostgreSQL: captures that reach its
 * partition spread over time, within the wait, are handled as one batch, so they land in one
 * segment. Without the wait (min bytes 1) each fetch returns what has arrived, and the same
 * traffic makes several. A topic of one partition, so one fetch is one batch.
 *
 * Why one fetch is certain: every fetch that starts after the writer joined its group returns
 * no earlier than the wait after it started (the events never reach the min bytes), and the
 * publishing ends long before, so the first fetch to return anything returns all of it.
 */
describe.skipIf(!engines || !postgresUrl)(
  "capture writer's fetch wait on Kafka (GATEWAY_TEST_ENGINES=1, GATEWAY_TEST_POSTGRES_URL)",
  () => {
    async function segmentsOfSpreadTraffic(fetch: { minBytes: number; maxWaitMs: number }) {
      const dir = await mkdtemp(join(tmpdir(), "cw-fetch-"));
      const database = await freshPostgresDatabase(postgresUrl!);
      const migrated = await openDb(database.config);
      await runMigrations(migrated);
      await migrated.close();
      const env = parseCaptureWriterEnv({
        GATEWAY_KAFKA_BROKERS: localEngines().kafkaBrokers,
        GATEWAY_KAFKA_PARTITIONS: "1",
        GATEWAY_KAFKA_NAME_PREFIX: `test-fetch-${randomBytes(4).toString("hex")}.`,
        GATEWAY_SPOOL_DIR: join(dir, "writer"),
        GATEWAY_DATABASE_URL: database.config.url,
        GATEWAY_S3_BUCKET: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
        GATEWAY_S3_PREFIX: `test-fetch-${randomBytes(4).toString("hex")}/`,
        GATEWAY_S3_ENDPOINT: localEngines().s3Url,
        GATEWAY_S3_FORCE_PATH_STYLE: "true",
        GATEWAY_S3_ACCESS_KEY: process.env.GATEWAY_S3_ACCESS_KEY ?? "gateway-dev",
        GATEWAY_S3_SECRET_KEY: process.env.GATEWAY_S3_SECRET_KEY ?? "gateway-dev-secret-key",
        GATEWAY_CAPTURE_FETCH_MIN_BYTES: String(fetch.minBytes),
        GATEWAY_CAPTURE_FETCH_MAX_WAIT_MS: String(fetch.maxWaitMs),
      });
      const { deps, close } = await captureWriterDeps(env, silentLogger);
      const writer = await startCaptureWriter(deps);
      const publisher = await openKafkaBus(
        { ...env, GATEWAY_SPOOL_DIR: join(dir, "publisher") },
        silentLogger,
        "publisher",
      );
      try {
        await eventually(() => deps.bus.consuming(), 30_000);
        const receivedAt = new Date().toISOString();
        for (let i = 0; i < events; i++) {
          const requestId = `req_fetch_${i}`;
          publisher.publish(callsTopic, requestId, capturedCall(requestId, receivedAt));
          await publisher.flush();
          await sleep(apartMs);
        }
        const rows = await eventually(async () => {
          const indexed = await captureIndexRows(deps.db);
          return indexed.length === events ? indexed : undefined;
        }, 30_000);
        // each segment's key, and how many captures it holds
        return [...Map.groupBy(rows, (row) => row.key)].map(([key, of]) => ({ key, captures: of.length }));
      } finally {
        await publisher.close();
        await writer.close();
        await close();
        await database.drop();
        await rm(dir, { recursive: true, force: true });
      }
    }

    it("waits for captures arriving over a second: one segment holds them all", async () => {
      const segments = await segmentsOfSpreadTraffic({ minBytes: 8 * 1024 * 1024, maxWaitMs: 5_000 });
      expect(segments).toEqual([{ key: expect.stringMatching(/\/segments\//), captures: events }]);
    }, 90_000);

    it("without the wait (min bytes 1), the same traffic makes a segment per fetch: several", async () => {
      const segments = await segmentsOfSpreadTraffic({ minBytes: 1, maxWaitMs: 500 });
      expect(segments.length).toBeGreaterThan(1);
    }, 90_000);
  },
);

function capturedCall(requestId: string, receivedAt: string) {
  return testCallEvent({
    request_id: requestId,
    received_at: receivedAt,
    capture: {
      request_headers: { "content-type": "application/json" },
      response_headers: {},
      request_body: { encoding: "utf8", data: `{"model":"gpt-5.4-mini","id":"${requestId}"}` },
      response_body: { encoding: "utf8", data: '{"ok":true}' },
    },
  });
}
