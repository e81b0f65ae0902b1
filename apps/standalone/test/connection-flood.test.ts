import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.ts";
import { type StandaloneProcess, startStandaloneProcess } from "./support/standalone-process.ts";

/** The server's `ulimit -n`: low, so that a test can reach it. */
const fdLimit = 1024;
/** More connections than the limit has descriptors. */
const floodSize = 1_500;

/**
 * A flood of connections that never send a request, past the server's file-descriptor limit:
 * the server holds at most its connection cap, real calls keep being answered and recorded, and
 * it never runs out of descriptors (EMFILE) for its own work.
 */
describe("the standalone process under a connection flood", () => {
  let p: StandaloneProcess;
  let projectId: string;

  beforeAll(async () => {
    p = await startStandaloneProcess({ fdLimit });
    const project = await fetch(`${p.url}/admin/v1/orgs/${p.orgId}/projects/default`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.apiKey}` },
    });
    projectId = ((await project.json()) as { id: string }).id;
  }, 60_000);
  afterAll(() => p?.close());

  /** Keeps `size` silent connections open, opening a new one whenever the server closes one. */
  function flood(size: number) {
    const open = new Set<Socket>();
    let opened = 0;
    let closedByServer = 0;
    let stopped = false;
    const one = () => {
      if (stopped) return;
      opened++;
      const socket = connect(p.port, "127.0.0.1");
      open.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        open.delete(socket);
        if (stopped) return;
        closedByServer++;
        setTimeout(one, 5);
      });
    };
    for (let i = 0; i < size; i++) one();
    return {
      figures: () => ({ opened, closedByServer }),
      stop() {
        stopped = true;
        for (const socket of open) socket.destroy();
      },
    };
  }

  let retries = 0;
  async function withRetries(attempt: () => Promise<Response>): Promise<Response> {
    for (let left = 2; ; left--) {
      try {
        return await attempt();
      } catch (error) {
        if (left === 0) throw error;
        retries++;
      }
    }
  }

  it(`answers and records every real call while ${floodSize} silent connections press on a ${fdLimit}-descriptor limit`, async () => {
    const pressure = flood(floodSize);
    try {
      // the flood has reached the cap: the server is closing connections to stay under it
      await eventually(
        async () => (pressure.figures().closedByServer > floodSize / 2 ? true : undefined),
        30_000,
      );
      const requestIds: string[] = [];
      const failures: string[] = [];
      for (let i = 0; i < 20; i++) {
        const stream = i % 2 === 1;
        // as the SDKs do (2 retries by default): a connection shed in the accept burst it came
        // in, before its request was read, failed without reaching the gateway; nothing is lost
        const res = await withRetries(() =>
          fetch(`${p.url}/v1/chat/completions`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${p.apiKey}`,
              "x-gateway-upstream-key": "sk-upstream-flood",
              "content-type": "application/json",
            },
            body: JSON.stringify({
              model: "gpt-5.4-mini",
              stream,
              messages: [{ role: "user", content: `hi ${i}` }],
            }),
            signal: AbortSignal.timeout(15_000),
          }),
        ).catch((error: Error) => error);
        if (res instanceof Error) {
          failures.push(String(res));
          continue;
        }
        const text = await res.text();
        if (res.status !== 200 || (stream && !text.includes("[DONE]")))
          failures.push(`${res.status} ${text.slice(0, 80)}`);
        else requestIds.push(res.headers.get("x-gateway-request-id")!);
      }
      const { opened, closedByServer } = pressure.figures();
      const cap = /"cap":(\d+)/.exec(p.app.output())?.[1] ?? "?";
      console.log(
        `connection flood (ulimit -n ${fdLimit}, cap ${cap}): ${opened} connections opened, ${closedByServer} closed ` +
          `by the server to stay under its cap, ${requestIds.length}/20 real calls answered (${retries} connection retries)`,
      );
      expect(failures).toEqual([]);
      // every answered call is recorded: its capture lists by id (read while the flood still
      // presses, so its connection may be shed too: retried as the calls are)
      for (const id of requestIds) {
        await eventually(async () => {
          const res = await withRetries(() =>
            fetch(`${p.url}/customer/v1/orgs/${p.orgId}/projects/${projectId}/captures/${id}`, {
              headers: { authorization: `Bearer ${p.apiKey}` },
            }),
          );
          await res.arrayBuffer();
          return res.status === 200 ? true : undefined;
        }, 10_000);
      }
    } finally {
      pressure.stop();
    }
    expect(p.app.output()).not.toContain("EMFILE");
  }, 120_000);

  /** Answers a fresh connection's request: the flood's connections are all closed on the server's side too. */
  async function answersFreshConnection(): Promise<true | undefined> {
    const socket = connect(p.port, "127.0.0.1");
    socket.on("error", () => {});
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.write("GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await new Promise((resolve) => {
      socket.once("close", resolve);
      setTimeout(resolve, 1_000);
    });
    socket.destroy();
    return received.startsWith("HTTP/1.1 200") ? true : undefined;
  }

  it("closes the connection of a refused upload instead of reading the rest of it", async () => {
    // after the flood, until the server has seen its connections close, a new one may be refused
    await eventually(answersFreshConnection, 10_000);
    const declared = 64 * 1024 * 1024;
    const socket = connect(p.port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", () => {});
    const closed = new Promise<boolean>((resolve) => socket.once("close", () => resolve(true)));
    // the headers of a 64 MiB upload with a wrong key, and its first MiB; the rest never comes
    socket.write(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_wrong\r\n" +
        `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(1024 * 1024, 0x20));
    const closedByServer = await Promise.race([
      closed,
      new Promise<boolean>((r) => setTimeout(r, 5_000, false)),
    ]);
    socket.destroy();
    console.log(
      `refused upload: "${received.split("\r\n")[0]}", connection closed by the server: ${closedByServer}`,
    );
    expect(received.startsWith("HTTP/1.1 401")).toBe(true);
    // without it the server would keep the connection, waiting to read and discard 63 MiB more
    expect(closedByServer).toBe(true);
  }, 30_000);
});
