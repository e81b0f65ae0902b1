import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BlobStore, createFsBlobStore } from "@gateway/blobstore";
import type { EventBus } from "@gateway/bus";
import { createKafkaBus } from "@gateway/bus/kafka";
import { createInProcessCache } from "@gateway/cache";
import { startCaptureWriter } from "@gateway/capture-writer";
import { silentLogger } from "@gateway/contracts";
import {
  buildServices,
  createControlPlaneApp,
  ensureFirstOrg,
  seedPricesAndQueueRepricing,
} from "@gateway/control-plane";
import { startCostingWorker } from "@gateway/costing-worker";
import { type Db, openDb, runMigrations } from "@gateway/db";
import { createGateway, type Gateway, gatewayConfigFromEnv } from "@gateway/gateway";
import { createInProcessQueue } from "@gateway/jobs";
import { createHttpServer } from "@gateway/runtime";
import { localEngines, type MockProviders, startMockProviders } from "@gateway/testkit";
import type { Tracer } from "@gateway/tracing";
import { expect } from "vitest";
import { parseEnv } from "../../src/env.ts";

const kafkaBrokers = [localEngines().kafkaBrokers];

type KafkaBusOptions = Parameters<typeof createKafkaBus>[0];

/**
 * The split deployment's path of a call event, in one process: gateways publishing to Kafka
 * through their spool, and the capture writer and costing worker on a bus of their own (as their
 * processes have), all sharing one embedded database. Topics are named with a prefix of their own,
 * so each suite's topics are created with its own message limit.
 */
export async function startKafkaCallPath(options: { tracer?: Tracer; maxMessageBytes?: number } = {}) {
  const dirs: string[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  const namePrefix = `call-path-${Date.now()}-${Math.random().toString(36).slice(2, 8)}-`;
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-kafka-call-path-"));
    dirs.push(dir);
    return dir;
  };
  /** A Kafka bus of this path (its prefix, its message limit); `overrides` win. */
  const kafkaBus = async (clientId: string, overrides: Partial<KafkaBusOptions> = {}) =>
    createKafkaBus({
      brokers: kafkaBrokers,
      clientId,
      spoolDir: await tempDir(),
      log: silentLogger,
      namePrefix,
      ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
      ...overrides,
    });

  const mocks: MockProviders = await startMockProviders();
  const store = await openDb({ kind: "sqlite", file: null });
  closers.push(() => store.close());
  await runMigrations(store);
  const db: Db = store.db;
  const jobs = createInProcessQueue(() => {});
  closers.push(() => jobs.close());
  await seedPricesAndQueueRepricing(db, jobs);
  const cache = createInProcessCache();
  const services = buildServices(
    { db, cache, blobs: createFsBlobStore(await tempDir()), log: silentLogger, jobs },
    {},
  );
  const first = (await ensureFirstOrg(services))!;
  const project = await createControlPlaneApp(services).request(
    `/admin/v1/orgs/${first.orgId}/projects/default`,
    { method: "POST", headers: { authorization: `Bearer ${first.apiKey}` } },
  );
  expect(project.status).toBe(200);
  await services.sync.syncAll(db);

  const consumers = await kafkaBus("call-path-consumers");
  closers.push(() => consumers.close());
  const captures: BlobStore = createFsBlobStore(await tempDir());
  await startCaptureWriter({
    db,
    blobs: captures,
    bus: consumers,
    log: silentLogger,
    tracer: options.tracer,
  });
  await startCostingWorker({ db, bus: consumers, jobs, log: silentLogger, tracer: options.tracer });

  return {
    db,
    apiKey: first.apiKey,
    /** Where the capture writer stores capture objects. */
    captures,
    mocks,
    tempDir,
    kafkaBus,
    /** Closed with the path. */
    closeLater(close: () => Promise<unknown>) {
      closers.push(close);
    },
    /** A gateway on `bus`, serving on a free port until the test stops it. */
    async gatewayOn(bus: EventBus): Promise<{ url: string; stop(): Promise<void> }> {
      const env = parseEnv({
        GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
        GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      });
      const gateway: Gateway = createGateway({
        cache,
        bus,
        log: silentLogger,
        config: gatewayConfigFromEnv(env),
        credentials: () => undefined,
        spillDir: await tempDir(),
        tracer: options.tracer,
      });
      const server: Server = createHttpServer((req, res) => gateway.handle(req, res), { log: silentLogger });
      await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
      const { port } = server.address() as { port: number };
      return {
        url: `http://127.0.0.1:${port}`,
        async stop() {
          await new Promise((done) => server.close(done));
          await gateway.close();
        },
      };
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => {});
      await mocks.close();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    },
  };
}
export type KafkaCallPath = Awaited<ReturnType<typeof startKafkaCallPath>>;
