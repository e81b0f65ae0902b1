import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createKafkaBus, type EventBus } from "@gateway/bus";
import { createInProcessCache } from "@gateway/cache";
import { startCaptureWriter } from "@gateway/capture-writer";
import { createHttpServer, silentLogger } from "@gateway/contracts";
import {
  buildServices,
  createControlPlaneApp,
  ensureFirstOrg,
  seedPricesAndQueueRepricing,
} from "@gateway/control-plane";
import { startCostingWorker } from "@gateway/costing-worker";
import { calls, type Db, openDb, runMigrations } from "@gateway/db";
import { createGateway, type Gateway, gatewayConfigFromEnv } from "@gateway/gateway";
import { createInProcessQueue } from "@gateway/jobs";
import { type MockProviders, startMockProviders } from "@gateway/testkit";
import { memoryTracer, type ReadableSpan } from "@gateway/tracing/testing";
import { SpanKind } from "@opentelemetry/api";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../src/env.ts";
import { eventually } from "./harness.ts";
import { callerTrace, tracedChat } from "./support/caller-trace.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const brokers = [process.env.GATEWAY_TEST_KAFKA_BROKERS ?? "127.0.0.1:59092"];

/**
 * The split deployment's path of a call event, in one process so that one in-memory exporter
 * sees every span: a gateway publishing to Kafka through its spool, and the two consumers on a
 * bus of their own (as their processes have), all sharing one embedded database.
 */
describe.skipIf(!engines)("traces over Kafka (GATEWAY_TEST_ENGINES=1)", () => {
  const { tracer, spans } = memoryTracer("split");
  const dirs: string[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  let db: Db;
  let mocks: MockProviders;
  let apiKey: string;
  let cache: ReturnType<typeof createInProcessCache>;
  const namePrefix = `traces-${Date.now()}-`;

  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-traces-kafka-"));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    mocks = await startMockProviders();
    const store = await openDb({ kind: "pglite", dataDir: null });
    closers.push(() => store.close());
    await runMigrations(store);
    db = store.db;
    const jobs = createInProcessQueue(() => {});
    closers.push(() => jobs.close());
    await seedPricesAndQueueRepricing(db, jobs);
    cache = createInProcessCache();
    const services = buildServices(
      { db, cache, blobs: createFsBlobStore(await tempDir()), log: silentLogger, jobs },
      {},
    );
    const first = (await ensureFirstOrg(services))!;
    apiKey = first.apiKey;
    const project = await createControlPlaneApp(services).request(
      `/admin/v1/orgs/${first.orgId}/projects/default`,
      { method: "POST", headers: { authorization: `Bearer ${apiKey}` } },
    );
    expect(project.status).toBe(200);
    await services.sync.syncAll(db);

    const consumers = await createKafkaBus({
      brokers,
      clientId: "traces-consumers",
      spoolDir: await tempDir(),
      log: silentLogger,
      namePrefix,
    });
    closers.push(() => consumers.close());
    await startCaptureWriter({
      db,
      blobs: createFsBlobStore(await tempDir()),
      bus: consumers,
      log: silentLogger,
      tracer,
    });
    await startCostingWorker({ db, bus: consumers, jobs, log: silentLogger, tracer });
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
    await mocks.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  /** A gateway on `bus`, serving on a free port until the test stops it. */
  async function gatewayOn(bus: EventBus): Promise<{ url: string; stop(): Promise<void> }> {
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
      tracer,
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
  }

  /** A call with the caller's own `traceparent`; resolves with its request id and the caller's trace. */
  async function tracedCall(url: string) {
    const caller = callerTrace();
    const res = await tracedChat(url, apiKey, caller, { "x-gateway-upstream-key": "sk-caller-traces-kafka" });
    expect(res.status).toBe(200);
    await res.text();
    return { requestId: res.headers.get("x-gateway-request-id")!, ...caller };
  }

  /** The call's span, and the consumers' spans once both have handled its event (off Kafka). */
  async function chainOf(requestId: string) {
    await eventually(async () => {
      const [row] = await db
        .select({ id: calls.requestId })
        .from(calls)
        .where(eq(calls.requestId, requestId));
      return row;
    }, 30_000);
    return eventually(async () => {
      const mine = spans().filter((s) => s.attributes["gateway.request_id"] === requestId);
      const server = mine.find((s) => s.kind === SpanKind.SERVER);
      const capture = mine.find((s) => s.name === "capture-writer store");
      const costing = mine.find((s) => s.name === "costing-worker price");
      return server && capture && costing ? { server, capture, costing } : undefined;
    }, 30_000);
  }

  const expectJoined = (consumer: ReadableSpan, server: ReadableSpan) => {
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(server.spanContext().traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(consumer.parentSpanContext?.isRemote).toBe(true);
  };

  it("carries the call's trace context in the Kafka message headers to both consumers' spans", async () => {
    const bus = await createKafkaBus({
      brokers,
      clientId: "traces-gateway",
      spoolDir: await tempDir(),
      log: silentLogger,
      namePrefix,
    });
    const gateway = await gatewayOn(bus);
    const call = await tracedCall(gateway.url);
    await bus.flush();
    const { server, capture, costing } = await chainOf(call.requestId);
    await gateway.stop();
    await bus.close();

    expect(server.spanContext().traceId).toBe(call.traceId);
    expect(server.parentSpanContext?.spanId).toBe(call.spanId);
    expectJoined(capture, server);
    expectJoined(costing, server);
  }, 60_000);

  it("keeps the trace context of a call spooled while the broker was away", async () => {
    const spoolDir = await tempDir();
    // a gateway whose broker never answers: the call's event waits in its spool
    const offline = await createKafkaBus({
      brokers: ["127.0.0.1:1"],
      clientId: "traces-gateway-offline",
      spoolDir,
      log: silentLogger,
      namePrefix,
      sendTimeoutMs: 300,
      retryIntervalMs: 60_000,
    });
    const gateway = await gatewayOn(offline);
    const call = await tracedCall(gateway.url);
    await gateway.stop();
    await offline.flush();
    await offline.close();

    // the next process on the spool reaches the broker and sends what waited
    const restarted = await createKafkaBus({
      brokers,
      clientId: "traces-gateway",
      spoolDir,
      log: silentLogger,
      namePrefix,
    });
    closers.push(() => restarted.close());
    const { server, capture, costing } = await chainOf(call.requestId);

    expect(server.parentSpanContext?.spanId).toBe(call.spanId);
    expectJoined(capture, server);
    expectJoined(costing, server);
  }, 60_000);
});
