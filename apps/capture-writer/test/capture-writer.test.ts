import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessBus } from "@gateway/bus";
import { type CallEvent, callsTopic, readCallEventWithBodies, silentLogger } from "@gateway/contracts";
import { type CaptureIndexRow, captureIndexPage } from "@gateway/db";
import { openTestDb } from "@gateway/db/testing";
import { testCallEvent } from "@gateway/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { captureEnvelope, startCaptureWriter } from "../src/index.ts";

function event(requestId: string, captured: boolean, over: Partial<CallEvent> = {}): CallEvent {
  return testCallEvent({
    request_id: requestId,
    received_at: "2026-11-21T10:00:00.000Z",
    upstream_request_id: "req_up",
    upstream_response_id: "chatcmpl-1",
    capture: captured
      ? {
          request_headers: { "content-type": "application/json" },
          response_headers: {},
          request_body: { encoding: "utf8", data: `{"model":"gpt-5.4-mini","id":"${requestId}"}` },
          response_body: { encoding: "base64", data: Buffer.from([0xff, 0xfe, 0x00]).toString("base64") },
        }
      : null,
    ...over,
  });
}

/** The envelope the writer makes of `e`: what must be stored for it, byte for byte. */
function envelopeOf(e: CallEvent): Buffer {
  const read = readCallEventWithBodies(e);
  if (!("event" in read)) throw new Error(read.problem);
  return captureEnvelope(read)!;
}

const segmentKeyPattern = /^captures\/org_1\/segments\/2026-11-21\/seg_[0-9a-z]{26}\.jsonl$/;

describe("capture writer", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function start(segmentBytes?: number) {
    dir = await mkdtemp(join(tmpdir(), "cw-"));
    const store = await openTestDb("sqlite");
    const blobs = createFsBlobStore(dir);
    const bus = createInProcessBus();
    await startCaptureWriter({
      db: store.db,
      blobs,
      bus,
      log: silentLogger,
      ...(segmentBytes ? { segmentBytes } : {}),
    });
    const rows = async () =>
      new Map(
        (await captureIndexPage(store.db, { projectId: "proj_1" }, null, 100)).map(
          (r) => [r.requestId, r] as const,
        ),
      );
    const read = (row: CaptureIndexRow) => blobs.getRange(row.key, row.offset!, row.size);
    return { store, bus, rows, read };
  }

  it("is idempotent by request id and skips uncaptured calls and malformed events", async () => {
    const { store, bus, rows, read } = await start();
    const first = event("req_a", true);
    bus.publish(callsTopic, "req_a", first);
    bus.publish(callsTopic, "req_a", first);
    bus.publish(callsTopic, "req_b", event("req_b", false));
    bus.publish(callsTopic, "req_c", { schema: callsTopic, request_id: 42 });
    await bus.flush();
    const [row] = [...(await rows()).values()];
    // the batch delivered again, as after a crash: a segment of its own, never indexed
    bus.publish(callsTopic, "req_a", first);
    await bus.flush();

    expect([...(await rows()).values()]).toEqual([row]);
    expect(row!.key).toMatch(segmentKeyPattern);
    expect(row!.offset).toBe(0);
    // the first batch held req_a twice: its segment holds it once
    expect((await readFile(join(dir, row!.key))).equals(envelopeOf(first))).toBe(true);
    const stored = JSON.parse((await read(row!))!.toString());
    expect(stored.response_body_encoding).toBe("base64");
    expect(Buffer.from(stored.response_body, "base64")).toEqual(Buffer.from([0xff, 0xfe, 0x00]));
    expect(await readdir(join(dir, "captures/org_1/segments/2026-11-21"))).toHaveLength(2);
    await store.close();
  });

  it("packs a batch into one segment per org and receipt day, each capture at its offset", async () => {
    const { store, bus, rows, read } = await start();
    const sameDay = ["req_1", "req_2", "req_3", "req_4"].map((id) => event(id, true));
    const otherOrg = event("req_5", true, { org_id: "org_2" });
    const nextDay = event("req_6", true, { received_at: "2026-11-22T00:00:00.000Z" });
    for (const e of [sameDay[0]!, otherOrg, sameDay[1]!, nextDay, sameDay[2]!, sameDay[3]!])
      bus.publish(callsTopic, e.request_id, e);
    await bus.flush();

    const indexed = await rows();
    const segment = indexed.get("req_1")!.key;
    expect(segment).toMatch(segmentKeyPattern);
    expect(sameDay.map((e) => indexed.get(e.request_id)!.key)).toEqual(Array(4).fill(segment));
    expect(indexed.get("req_5")!.key).toMatch(/^captures\/org_2\/segments\/2026-11-21\//);
    expect(indexed.get("req_6")!.key).toMatch(/^captures\/org_1\/segments\/2026-11-22\//);
    // the segment is the envelopes back to back, in the batch's order; each row reads its own
    const envelopes = sameDay.map(envelopeOf);
    expect((await readFile(join(dir, segment))).equals(Buffer.concat(envelopes))).toBe(true);
    let offset = 0;
    for (const [i, e] of sameDay.entries()) {
      const row = indexed.get(e.request_id)!;
      expect([row.offset, row.size]).toEqual([offset, envelopes[i]!.length]);
      expect((await read(row))!.equals(envelopes[i]!)).toBe(true);
      offset += row.size;
    }
    expect((await read(indexed.get("req_6")!))!.equals(envelopeOf(nextDay))).toBe(true);
    await store.close();
  });

  it("cuts a segment at its size: with 1 byte, every capture is an object of its own", async () => {
    const { store, bus, rows, read } = await start(1);
    const calls = ["req_1", "req_2", "req_3"].map((id) => event(id, true));
    for (const e of calls) bus.publish(callsTopic, e.request_id, e);
    await bus.flush();
    const indexed = await rows();
    expect(new Set([...indexed.values()].map((r) => r.key)).size).toBe(3);
    for (const e of calls) {
      const row = indexed.get(e.request_id)!;
      expect(row.offset).toBe(0);
      expect((await read(row))!.equals(envelopeOf(e))).toBe(true);
    }
    await store.close();
  });
});
