import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessBus } from "@gateway/bus";
import { type CallEvent, callsTopic, silentLogger } from "@gateway/contracts";
import { captureIndexPage } from "@gateway/db";
import { openTestDb } from "@gateway/db/testing";
import { testCallEvent } from "@gateway/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { captureKey, startCaptureWriter } from "../src/index.ts";

function event(requestId: string, captured: boolean): CallEvent {
  return testCallEvent({
    request_id: requestId,
    received_at: "2026-11-21T10:00:00.000Z",
    upstream_request_id: "req_up",
    upstream_response_id: "chatcmpl-1",
    capture: captured
      ? {
          request_headers: { "content-type": "application/json" },
          response_headers: {},
          request_body: { encoding: "utf8", data: '{"model":"gpt-5.4-mini"}' },
          response_body: { encoding: "base64", data: Buffer.from([0xff, 0xfe, 0x00]).toString("base64") },
        }
      : null,
  });
}

describe("capture writer", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("is idempotent by request id and skips uncaptured calls and malformed events", async () => {
    dir = await mkdtemp(join(tmpdir(), "cw-"));
    const store = await openTestDb("sqlite");
    const blobs = createFsBlobStore(dir);
    const bus = createInProcessBus();
    await startCaptureWriter({ db: store.db, blobs, bus, log: silentLogger });

    const first = event("req_a", true);
    bus.publish(callsTopic, "req_a", first);
    bus.publish(callsTopic, "req_a", first);
    bus.publish(callsTopic, "req_b", event("req_b", false));
    bus.publish(callsTopic, "req_c", { schema: callsTopic, request_id: 42 });
    await bus.flush();
    bus.publish(callsTopic, "req_a", first);
    await bus.flush();

    const rows = await captureIndexPage(store.db, { projectId: "proj_1" }, null, 10);
    expect(rows.map((r) => r.requestId)).toEqual(["req_a"]);
    expect(rows[0]!.key).toBe(captureKey(first));
    const stored = JSON.parse((await blobs.get(captureKey(first)))!.toString());
    expect(stored.response_body_encoding).toBe("base64");
    expect(Buffer.from(stored.response_body, "base64")).toEqual(Buffer.from([0xff, 0xfe, 0x00]));
    expect(rows[0]!.size).toBe((await blobs.get(captureKey(first)))!.length);
    const day = await readdir(join(dir, "captures/org_1/proj_1/api_key_1/2026-11-21"));
    expect(day).toEqual(["req_a.jsonl"]);
    await store.close();
  });
});
