import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp } from "./e2e/processes.ts";
import { eventually } from "./harness.ts";
import { answeredTraffic } from "./support/answered-traffic.ts";
import { streamsHalfHangingUp } from "./support/hang-up.ts";
import { type StandaloneProcess, startStandaloneProcess } from "./support/standalone-process.ts";
import { usageSeen } from "./support/usage-seen.ts";

const kills = 3;

/**
 * The one-process deployment killed the way hosts kill processes (SIGKILL: an OOM kill, `docker
 * kill`) under traffic, again and again on one data dir: the database opens after every kill,
 * and no call whose client had its answer is lost or recorded twice.
 */
describe("the standalone process, killed", () => {
  let p: StandaloneProcess;
  const get = async (path: string) => {
    const res = await request(p.url + path, { headers: { authorization: `Bearer ${p.apiKey}` } });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    p = await startStandaloneProcess({ env: { GATEWAY_DRAIN_TIMEOUT_MS: "20000" } });
  }, 60_000);
  afterAll(() => p?.close());

  it("refuses a second process on the same data dir, and leaves the first one serving", async () => {
    for (const env of [{ PORT: "0" }, {}]) {
      // a free port, then the port the first one holds: the lock refuses both before anything opens
      const second = await startApp(
        "second",
        "apps/standalone/src/main.ts",
        {
          PORT: env.PORT ?? String(p.port),
          GATEWAY_DATA_DIR: p.dataDir,
        },
        /never/,
        30_000,
      ).catch((error: Error) => error);
      expect(second).toBeInstanceOf(Error);
      expect(String(second)).toContain(`is in use by process ${p.app.child.pid}`);
    }
    const res = await get(`/admin/v1/orgs/${p.orgId}/projects/default`);
    expect(res.status).toBe(200);
  }, 90_000);

  it(`loses no answered call over ${kills} SIGKILLs under traffic, and records none twice`, async () => {
    const traffic = answeredTraffic(() => p.url, p.apiKey);
    let restarts = 0;
    for (let k = 0; k < kills; k++) {
      await new Promise((r) => setTimeout(r, 400 + Math.random() * 1200));
      p.app.child.kill("SIGKILL");
      await p.app.exited;
      // the database must open again, on the same data dir, at once
      await p.restart();
      expect(p.app.output()).toContain("did not stop cleanly");
      restarts++;
    }
    await new Promise((r) => setTimeout(r, 500));
    await traffic.stop();
    const answered = traffic.answered;
    expect(answered.length).toBeGreaterThan(50);

    const project = (await get(`/admin/v1/orgs/${p.orgId}/projects/default`)).json.id as string;
    const lost = async () => {
      const missing: string[] = [];
      for (const id of answered) {
        const [capture, cost] = await Promise.all([
          get(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures/${id}`),
          get(`/admin/v1/orgs/${p.orgId}/calls/${id}/cost`),
        ]);
        if (capture.status !== 200 || cost.status !== 200) missing.push(id);
      }
      return missing;
    };
    const missing = await eventually(async () => {
      const m = await lost();
      return m.length === 0 ? m : undefined;
    }, 30_000).catch(() => lost());

    // Exactly one capture per call: the list holds each request id once; the data dir holds the
    // segments the index points at and no other (none torn, none orphaned by a replay), and
    // nothing in them that is not listed. (A replayed batch's segment may hold again a capture
    // indexed from the first one: those bytes are never read, and retention reclaims them.)
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(
        `/customer/v1/orgs/${p.orgId}/projects/${project}/captures?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      listed.push(...page.json.captures.map((c: { request_id: string }) => c.request_id));
      cursor = page.json.cursor;
    } while (cursor);
    const objects = (await readdir(join(p.dataDir, "blobs"), { recursive: true })).filter((f) =>
      f.endsWith(".jsonl"),
    );
    const stored = new Set<string>();
    for (const object of objects) {
      const lines = (await readFile(join(p.dataDir, "blobs", object), "utf8")).split("\n");
      // every file ends with a whole line: nothing after its last newline
      expect(lines.pop()).toBe("");
      for (const line of lines) stored.add(JSON.parse(line).request_id);
    }
    const index = new DatabaseSync(join(p.dataDir, "gateway.db"), { readOnly: true });
    const indexed = index.prepare("select distinct key from capture_index order by key").all();
    index.close();
    console.log(
      `SIGKILL under traffic: ${restarts} kills, ${answered.length} calls answered, ` +
        `${answered.length - missing.length} recorded, ${missing.length} lost; ${traffic.failed} attempts not answered (cut off, or refused while restarting); ` +
        `${listed.length} captures listed, ${new Set(listed).size} distinct; ${objects.length} segments on disk holding ${stored.size} captures`,
    );
    expect(missing).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
    expect(objects.sort()).toEqual(indexed.map((row) => row.key));
    expect(stored).toEqual(new Set(listed));
  }, 180_000);

  it("after a kill, indexes whole captures no row lists and deletes files no row lists, in both layouts", async () => {
    const project = (await get(`/admin/v1/orgs/${p.orgId}/projects/default`)).json.id as string;
    const [listed] = (await get(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures?limit=1`)).json
      .captures;
    const envelope = JSON.stringify(
      (await get(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures/${listed.request_id}`)).json,
    );
    const as = (id: string) => `${envelope.replace(listed.request_id, id)}\n`;
    const id = (name: string) => `req_${"0".repeat(26 - name.length)}${name}`;
    const { org_id, project_id, api_key_id, received_at } = JSON.parse(envelope);
    const segments = join(p.dataDir, "blobs", `captures/${org_id}/segments/${received_at.slice(0, 10)}`);
    const perCall = join(
      p.dataDir,
      "blobs",
      `captures/${org_id}/${project_id}/${api_key_id}/${received_at.slice(0, 10)}`,
    );
    await mkdir(perCall, { recursive: true });
    // as a kill leaves them: a segment whose index insert never ran, one cut short, one whose
    // capture a replay indexed from another segment; an object of the per-call layout whose insert
    // never ran, and one cut short
    const files = {
      whole: [join(segments, "seg_0000000000000000000000whole.jsonl"), as(id("whole1")) + as(id("whole2"))],
      torn: [
        join(segments, "seg_00000000000000000000000torn.jsonl"),
        as(id("torn1")) + as(id("torn2")).slice(0, 200),
      ],
      orphan: [join(segments, "seg_0000000000000000000000orphan.jsonl"), as(listed.request_id)],
      perCallWhole: [join(perCall, `${id("whole3")}.jsonl`), as(id("whole3"))],
      perCallTorn: [join(perCall, `${id("torn3")}.jsonl`), as(id("torn3")).slice(0, 200)],
    } as const;
    for (const [path, text] of Object.values(files)) await writeFile(path, text);
    p.app.child.kill("SIGKILL");
    await p.app.exited;
    await p.restart();
    // the cut segment's whole first capture is indexed: that segment stays
    expect(p.app.output()).toContain('"torn":1,"orphaned":1,"indexed":4');
    for (const name of ["whole1", "whole2", "torn1", "whole3"]) {
      const read = await get(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures/${id(name)}`);
      expect(read.status).toBe(200);
      expect(read.json.request_id).toBe(id(name));
    }
    expect(
      (await get(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures/${id("torn2")}`)).status,
    ).toBe(404);
    const left = [...(await readdir(segments)), ...(await readdir(perCall))];
    expect(left).toEqual(
      expect.arrayContaining([
        "seg_0000000000000000000000whole.jsonl",
        "seg_00000000000000000000000torn.jsonl",
        `${id("whole3")}.jsonl`,
      ]),
    );
    expect(left).not.toContain("seg_0000000000000000000000orphan.jsonl");
    expect(left).not.toContain(`${id("torn3")}.jsonl`);
  }, 60_000);

  it("records a stream whose client read it to its end, though the process dies before the upstream's end of body", async () => {
    // The upstream sends its terminal event, then holds its end of body for a minute: the client's
    // response must end at the terminal event, with the call journaled before that, not at the
    // upstream's end (a kill then, or any time before, would lose a call its client saw complete).
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${p.apiKey}`,
      "x-gateway-upstream-key": "sk-upstream-kill",
      "x-mock-end-delay-ms": "60000",
    };
    const body = JSON.stringify({
      model: "gpt-5.4-mini",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "held end" }],
    });
    const res = await request(`${p.url}/v1/chat/completions`, { method: "POST", headers, body });
    const text = await res.body.text();
    const requestId = String(res.headers["x-gateway-request-id"]);
    expect(res.statusCode).toBe(200);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    p.app.child.kill("SIGKILL");
    await p.app.exited;
    await p.restart();

    const project = (await get(`/admin/v1/orgs/${p.orgId}/projects/default`)).json.id as string;
    const recorded = async (path: string) =>
      eventually(async () => {
        const got = await get(path);
        return got.status === 200 ? got.json : undefined;
      }, 20_000);
    const capture = await recorded(`/customer/v1/orgs/${p.orgId}/projects/${project}/captures/${requestId}`);
    expect(capture.stream_outcome).toBe("complete");
    expect(capture.response_body).toBe(text);
    const cost = await recorded(`/admin/v1/orgs/${p.orgId}/calls/${requestId}/cost`);
    const seen = usageSeen("chat_completions", text)!;
    expect(seen.output).toBeGreaterThan(0);
    expect(cost.usage.output_tokens).toBe(seen.output);
    const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = cost.usage;
    expect(input_tokens + cache_read_input_tokens + cache_creation_input_tokens).toBe(seen.prompt);
  }, 60_000);

  it("on SIGTERM with streams in flight, answers them all and exits with nothing left in flight", async () => {
    const headers = {
      authorization: `Bearer ${p.apiKey}`,
      "x-gateway-upstream-key": "sk-upstream-kill",
      "x-mock-frame-delay-ms": "40",
      "x-mock-end-delay-ms": "2",
    };
    const body = JSON.stringify({
      model: "gpt-5.4-mini",
      stream: true,
      messages: [{ role: "user", content: "t" }],
    });
    p.mocks.providerB.reset();
    const streams = streamsHalfHangingUp(`${p.url}/v1/chat/completions`, headers, body, 20);
    // every stream under way upstream: a request still in transit when the server stops listening
    // would be refused, which is the load balancer's part (readiness), not what this test is about
    await eventually(async () => (p.mocks.providerB.requests.length >= 20 ? true : undefined), 10_000);
    p.app.child.kill("SIGTERM");
    expect(await streams).toEqual(Array(20).fill(true));
    expect(await p.app.exited).toBe(0);
    expect(p.app.output()).not.toContain("drain deadline passed");
    // a clean stop leaves the data dir free and its journal empty
    expect(await readdir(p.dataDir)).not.toContain("lock.pid");
    expect(await readdir(join(p.dataDir, "journal"))).toEqual([]);
  }, 60_000);
});
