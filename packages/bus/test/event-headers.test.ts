import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { silentLogger } from "@gateway/contracts";
import { eventually, localEngines } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import {
  createInProcessBus,
  type EventHeaders,
  openJournal,
  openSpool,
  type Subscription,
} from "../src/index.ts";
import { createKafkaBus } from "../src/kafka.ts";
import { busWithoutBroker } from "./support/bus-without-broker.ts";
import { tempDirs } from "./support/spool-dirs.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";
const brokers = [localEngines().kafkaBrokers];
const tempDir = tempDirs("event-headers-");

const traceparent = (n: number) =>
  `00-${"4bf92f3577b34da6a3ce929d0e0e47".padEnd(32, String(n))}-00f067aa0ba902b7-01`;

/** A subscription that keeps every event with the headers it arrived with. */
function recording(topic: string, group: string) {
  const seen: { event: unknown; headers: EventHeaders | undefined }[] = [];
  const subscription: Subscription = {
    topic,
    group,
    handle: async (batch, headers) => {
      batch.forEach((event, i) => void seen.push({ event, headers: headers[i] }));
    },
  };
  return { seen, subscription };
}

describe("event headers", () => {
  it("reach the subscribers in process beside their event, and events without any have none", async () => {
    const bus = createInProcessBus();
    const { seen, subscription } = recording("t", "g");
    await bus.subscribe(subscription);
    bus.publish("t", "a", { n: 1 }, { traceparent: traceparent(1), tracestate: "v=1" });
    bus.publish("t", "b", { n: 2 });
    await bus.flush();
    expect(seen).toEqual([
      { event: { n: 1 }, headers: { traceparent: traceparent(1), tracestate: "v=1" } },
      { event: { n: 2 }, headers: undefined },
    ]);
    await bus.close();
  });

  it("are kept in the in-process bus's journal and come back with the replayed event", async () => {
    const dir = await tempDir();
    const open = () => openJournal(dir, { onError: () => {} });
    const first = createInProcessBus({ journal: open() });
    await first.subscribe({ topic: "t", group: "g", handle: () => new Promise(() => {}) });
    first.publish("t", "a", { n: 1 }, { traceparent: traceparent(2) });
    first.publish("t", "b", { n: 2 });
    await new Promise<void>((resolve) => first.whenJournaled(resolve));
    // "killed" once journaled: nothing handled, nothing closed

    const second = createInProcessBus({ journal: open() });
    const { seen, subscription } = recording("t", "g");
    await second.subscribe(subscription);
    expect(second.replayJournal()).toBe(2);
    await second.flush();
    expect(seen).toEqual([
      { event: { n: 1 }, headers: { traceparent: traceparent(2) } },
      { event: { n: 2 }, headers: undefined },
    ]);
    await second.close();
  });

  it("are kept in the spool, and a spool written before headers existed still reads", async () => {
    const dir = await tempDir();
    // a segment as an older gateway wrote it: no headers anywhere
    await writeFile(join(dir, "seg-000000000001.log"), `${JSON.stringify({ t: "t", k: "old" })}\t{"n":0}\n`);
    const spool = await openSpool(dir);
    const records = [
      { topic: "t", key: "a", value: Buffer.from('{"n":1}'), headers: { traceparent: traceparent(3) } },
      { topic: "t", key: "b", value: Buffer.from([0, 1, 2]) },
    ];
    await spool.append(records);
    const again = await openSpool(dir);
    const old = await again.oldest();
    expect(old?.records).toEqual([{ topic: "t", key: "old", value: Buffer.from('{"n":0}') }]);
    await again.remove(old!.name);
    expect((await again.oldest())?.records).toEqual(records);
  });

  it("that do not read as text are dropped, never the event they came with", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, "seg-000000000001.log"),
      `${JSON.stringify({ t: "t", k: "a", h: { traceparent: 7 } })}\t{"n":1}\n`,
    );
    const segment = await (await openSpool(dir)).oldest();
    expect(segment?.records).toEqual([{ topic: "t", key: "a", value: Buffer.from('{"n":1}') }]);
    expect(segment?.skipped).toBe(0);
  });
});

describe.skipIf(!engines)("event headers on Kafka (GATEWAY_TEST_ENGINES=1)", () => {
  it("travel as message headers, through the spool of a process that could not reach the broker", async () => {
    const topic = `test.headers.${Date.now()}`;
    const spoolDir = await tempDir();
    const offline = await busWithoutBroker(spoolDir);
    offline.publish(topic, "spooled", { n: 1 }, { traceparent: traceparent(4), tracestate: "a=b" });
    offline.publish(topic, "plain", { n: 2 });
    await offline.flush();
    await offline.close();

    const bus = await createKafkaBus({
      brokers,
      clientId: "test",
      spoolDir,
      log: silentLogger,
      partitions: 1,
    });
    const { seen, subscription } = recording(topic, `${topic}.g`);
    await bus.subscribe(subscription);
    bus.publish(topic, "direct", { n: 3 }, { traceparent: traceparent(5) });
    await bus.flush();
    await eventually(() => seen.length >= 3, 20_000);
    await bus.close();
    expect(seen).toEqual([
      { event: { n: 1 }, headers: { traceparent: traceparent(4), tracestate: "a=b" } },
      { event: { n: 2 }, headers: undefined },
      { event: { n: 3 }, headers: { traceparent: traceparent(5) } },
    ]);
  }, 60_000);
});
