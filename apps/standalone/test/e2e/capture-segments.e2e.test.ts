import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploymentBlobs, type SplitDeployment, startSplitDeployment } from "./deployments.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { chatBody, gatewayCall, sleep, within } from "./traffic.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

interface IndexRow {
  request_id: string;
  key: string;
  offset: string;
  size: string;
}

/**
 * Captures in segments on the split deployment (issue 41): the capture writer packs a batch's
 * captures into one S3 object per (org, receipt day), and the control plane reads each back as
 * a range of it; a writer killed between writing its segments and indexing them loses nothing
 * and lists nothing twice once restarted.
 */
describe.skipIf(!engines)(
  "end to end: captures in segments on the split deployment (GATEWAY_TEST_ENGINES=1)",
  () => {
    let d: SplitDeployment;
    let org: TestOrg;
    beforeAll(async () => {
      d = await startSplitDeployment();
      org = await createTestOrg(d);
    }, 240_000);
    afterAll(() => d?.close(), 120_000);

    const calls = async (n: number, tag: string) => {
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          gatewayCall(d.gateways[i % 2]!, org.apiKey, "/v1/chat/completions", {
            ...chatBody(i),
            messages: [{ role: "user", content: `${tag} ${i} ${"é".repeat(i * 50)}` }],
          }),
        ),
      );
      expect(replies.map((r) => r.status)).toEqual(Array(n).fill(200));
      return replies.map((r) => r.requestId);
    };
    const indexRows = (ids: string[]) =>
      d.sql<
        IndexRow[]
      >`select request_id, key, "offset", size from capture_index where request_id = any(${ids})`;
    const indexed = (ids: string[]) =>
      within(
        60_000,
        async () => {
          const rows = await indexRows(ids);
          return rows.length === ids.length ? rows : undefined;
        },
        250,
      );
    const read = async (requestId: string) => {
      const res = await fetch(
        `${d.controlPlane}/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures/${requestId}`,
        {
          headers: { authorization: `Bearer ${org.apiKey}` },
        },
      );
      return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
    };

    it("packs the captures of a batch into one object, each read back byte for byte through the control plane", async () => {
      // the writer paused while the calls are made: their events wait in Kafka, and it takes them
      // in one batch per partition when it resumes (well within its group's session timeout)
      const writer = d.apps.captureWriter.child;
      writer.kill("SIGSTOP");
      let ids: string[];
      try {
        ids = await calls(30, "batch");
        await sleep(1_000);
      } finally {
        writer.kill("SIGCONT");
      }
      const rows = await indexed(ids);
      const segments = Map.groupBy(rows, (r) => r.key);
      const partitions = Number(d.env.GATEWAY_KAFKA_PARTITIONS ?? 1);
      console.log(`one batch: ${ids.length} captures in ${segments.size} objects (${partitions} partitions)`);
      expect(segments.size).toBeLessThanOrEqual(partitions);
      for (const key of segments.keys())
        expect(key).toMatch(
          new RegExp(`^captures/${org.orgId}/segments/\\d{4}-\\d{2}-\\d{2}/seg_[0-9a-z]{26}\\.jsonl$`),
        );

      const blobs = await deploymentBlobs(d.env);
      try {
        for (const [key, captures] of segments) {
          // the object is its captures' envelopes back to back, and the control plane serves each
          // one as exactly its bytes of it
          const object = (await blobs.get(key))!;
          const reads = [];
          for (const row of captures.sort((a, b) => Number(a.offset) - Number(b.offset))) {
            const got = await read(row.request_id);
            expect(got.status).toBe(200);
            expect(got.bytes.length).toBe(Number(row.size));
            expect(
              got.bytes.equals(object.subarray(Number(row.offset), Number(row.offset) + Number(row.size))),
            ).toBe(true);
            const envelope = JSON.parse(got.bytes.toString("utf8"));
            expect(envelope.request_id).toBe(row.request_id);
            expect(JSON.parse(envelope.request_body).messages[0].content).toMatch(/^batch \d+ é*$/);
            reads.push(got.bytes);
          }
          expect(Buffer.concat(reads).equals(object)).toBe(true);
        }
      } finally {
        blobs.close();
      }
    }, 120_000);

    it("a capture writer SIGKILLed after writing its segments, before indexing them, leaves every capture listed once and readable", async () => {
      // The index is locked against inserts: the writer writes its batch's segments, then waits on
      // its index insert, and is killed there, the window a crash mid-batch leaves.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let lockTaken = () => {};
      const taken = new Promise<void>((resolve) => {
        lockTaken = resolve;
      });
      const transaction = d.sql.begin(async (tx) => {
        await tx`lock table capture_index in share mode`;
        lockTaken();
        await held;
      });
      await Promise.race([taken, transaction]);
      let ids: string[] = [];
      try {
        ids = await calls(40, "killed");
        await within(30_000, async () => {
          const [waiting] = await d.sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into "capture_index"%'`;
          return waiting!.n > 0 ? true : undefined;
        });
        await d.apps.captureWriter.stop("SIGKILL");
      } finally {
        release();
        await transaction;
      }
      expect(await indexRows(ids)).toEqual([]);
      await d.restartCaptureWriter();

      // the batch delivered again: every capture indexed once, from a segment of the new process
      const rows = await indexed(ids);
      expect(new Set(rows.map((r) => r.request_id)).size).toBe(ids.length);
      const listed: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await d.cp(
          "GET",
          `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          undefined,
          org.apiKey,
        );
        listed.push(...(page.json.captures as { request_id: string }[]).map((c) => c.request_id));
        cursor = page.json.cursor as string | null;
      } while (cursor);
      const ours = listed.filter((id) => ids.includes(id));
      expect(ours.length).toBe(ids.length);
      expect(new Set(ours).size).toBe(ids.length);
      for (const id of ids) {
        const got = await read(id);
        expect(got.status).toBe(200);
        expect(JSON.parse(got.bytes.toString("utf8")).request_id).toBe(id);
      }
      console.log(
        `capture writer killed before its index insert: ${ids.length} captures, ` +
          `${new Set(rows.map((r) => r.key)).size} segments indexed after the restart, each capture listed once`,
      );
    }, 180_000);
  },
);
