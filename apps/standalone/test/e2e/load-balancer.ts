import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SplitDeployment } from "./deployments.ts";
import { infra } from "./processes.ts";
import { recordedRows } from "./recorded.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { sleep, steadyTraffic, within } from "./traffic.ts";

/** HAProxy's health checks: every 300 ms, two failures take a gateway out, two successes bring it back. */
const checks = { interMs: 300, fall: 2, rise: 2 };

interface LoadBalancer {
  url: string;
  /** When HAProxy logged `server` going `state`, the first time at or after `since` (waits for it). */
  until(server: "g1" | "g2", state: "UP" | "DOWN", since: number): Promise<number>;
  /** Notes what the test did in the log, at this moment. */
  mark(what: string): void;
  /** HAProxy's changes of its gateways' state and the test's marks, timed. */
  healthLog(): string[];
  stop(): Promise<void>;
}

/**
 * HAProxy (Debian's, installed by `infra/haproxy.sh install`) in front of `gateways`: round
 * robin, `/readyz` checked. With `retries`, as an operator would run it: a request that could
 * not reach a gateway (refused, or on a kept-alive connection the gateway had just closed) goes
 * to the other one. Without, as the strictest balancer (many cloud ones retry nothing): every
 * refused connection is a client's error.
 */
async function startHaproxy(gateways: string[], { retries }: { retries: boolean }): Promise<LoadBalancer> {
  const binary = (await infra("haproxy", "path")).trim();
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "gw-haproxy-"));
  const servers = gateways.map((g, i) => `  server g${i + 1} 127.0.0.1:${new URL(g).port}`);
  const config = [
    "global",
    "  log stdout format raw local0 info",
    "defaults",
    "  mode http",
    "  log global",
    "  option dontlog-normal",
    "  timeout connect 1s",
    "  timeout client 30s",
    "  timeout server 30s",
    "  timeout check 1s",
    ...(retries
      ? [
          "  retries 3",
          "  option redispatch 1",
          // only what never reached a gateway's handler is sent again: no call runs twice
          "  retry-on conn-failure empty-response",
          "  option http-buffer-request",
        ]
      : ["  retries 0"]),
    "frontend gateway",
    `  bind 127.0.0.1:${port}`,
    "  default_backend gateways",
    "backend gateways",
    "  balance roundrobin",
    "  option httpchk GET /readyz",
    "  http-check expect status 200",
    "  option log-health-checks",
    `  default-server check inter ${checks.interMs}ms fall ${checks.fall} rise ${checks.rise}`,
    ...servers,
    "",
  ].join("\n");
  await writeFile(join(dir, "haproxy.cfg"), config);
  const child: ChildProcess = spawn(binary, ["-db", "-f", join(dir, "haproxy.cfg")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // its log (stdout), each line with when it came; stderr repeats the warnings, and is kept apart
  const started = Date.now();
  const lines: { at: number; line: string }[] = [];
  let output = "";
  child.stdout!.on("data", (d: Buffer) => {
    for (const line of d.toString().split("\n")) if (line) lines.push({ at: Date.now(), line });
  });
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await within(10_000, async () => {
    const res = await fetch(`${url}/readyz`).catch(() => null);
    await res?.arrayBuffer();
    return res?.status === 200 ? true : undefined;
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw new Error(`haproxy did not start: ${String(error)}\n${output}`);
  });
  return {
    url,
    until: (server, state, since) =>
      within(
        15_000,
        async () =>
          lines.find((l) => l.at >= since && l.line.startsWith(`Server gateways/${server} is ${state}`))?.at,
        10,
      ),
    mark: (what) => void lines.push({ at: Date.now(), line: `-- ${what}` }),
    healthLog: () =>
      lines
        .filter((l) => l.line.startsWith("Server gateways/") || l.line.startsWith("-- "))
        .map((l) => `+${l.at - started} ms ${l.line}`),
    async stop() {
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The split deployment's two gateways behind a real load balancer: rolling restarts (SIGTERM,
 * then a new process on the same port and spool) under steady JSON and streaming traffic fail
 * no client request, and a SIGKILLed gateway costs only the requests it had in flight.
 */
export function loadBalancerScenarios(deployment: () => SplitDeployment) {
  describe("behind a load balancer (HAProxy)", () => {
    let d: SplitDeployment;
    let org: TestOrg;
    /** Retries nothing: the rolling restart must not lean on the balancer's retries. */
    let strict: LoadBalancer;
    /** As an operator runs it: a refused connection goes to the other gateway. */
    let retrying: LoadBalancer;
    beforeAll(async () => {
      d = deployment();
      org = await createTestOrg(d);
      // ready first (a gateway that just started is not until its cache has synced): HAProxy
      // starts with every server up, and a failed first check takes one out at once
      for (const g of d.gateways)
        await within(10_000, async () => {
          const res = await fetch(`${g}/readyz`);
          await res.arrayBuffer();
          return res.status === 200 ? true : undefined;
        });
      strict = await startHaproxy(d.gateways, { retries: false });
      retrying = await startHaproxy(d.gateways, { retries: true });
    }, 60_000);
    afterAll(async () => {
      await strict?.stop();
      await retrying?.stop();
    });

    /** Every call a client had answered has one call row and one capture. */
    async function expectRecordedOnce(ok: string[]) {
      const { calls, captures } = await recordedRows(d, ok, 60_000);
      expect({ calls, captures }).toEqual({
        calls: { n: ok.length, distinct: ok.length },
        captures: { n: ok.length, distinct: ok.length },
      });
      return { calls, captures };
    }

    it("restarts each gateway in turn under steady JSON and streaming traffic: no client sees an error, every call recorded once", async () => {
      const traffic = steadyTraffic([strict.url], org.apiKey, 20, { streams: true });
      await sleep(1_500);
      const restarts: string[] = [];
      for (const n of [1, 2] as const) {
        const app = d.apps[`gateway${n}`];
        const signalled = Date.now();
        strict.mark(`SIGTERM to g${n}`);
        app.child.kill("SIGTERM");
        const down = await strict.until(`g${n}`, "DOWN", signalled);
        expect(await app.exited).toBe(0);
        const exited = Date.now();
        strict.mark(`g${n} exited`);
        await d.restartGateway(n);
        strict.mark(`g${n} ready again`);
        const up = await strict.until(`g${n}`, "UP", signalled);
        restarts.push(
          `g${n}: out of rotation after ${down - signalled} ms, exited after ${exited - signalled} ms, back after ${up - signalled} ms`,
        );
        await sleep(1_000);
      }
      const { ok, errors } = await traffic.stop();
      console.log(
        `rolling restart behind HAProxy: ${ok.length} calls answered (a third streams), ${errors.length} failed; ${restarts.join("; ")}`,
      );
      if (errors.length > 0) console.log(strict.healthLog().join("\n"));
      expect(errors).toEqual([]);
      await expectRecordedOnce(ok);
    }, 120_000);

    it("takes a SIGKILLed gateway out of rotation within its health checks; only requests it had in flight fail", async () => {
      const traffic = steadyTraffic([retrying.url], org.apiKey, 20, { streams: true });
      await sleep(1_500);
      const killedAt = Date.now();
      retrying.mark("SIGKILL to g2");
      d.apps.gateway2.child.kill("SIGKILL");
      const down = await retrying.until("g2", "DOWN", killedAt);
      await sleep(1_000);
      await d.restartGateway(2);
      await retrying.until("g2", "UP", killedAt);
      await sleep(500);
      const { ok, errors, failedAt } = await traffic.stop();
      const sentAfterKill = failedAt.filter((sent) => sent >= killedAt).length;
      console.log(
        `gateway SIGKILLed behind HAProxy: out of rotation ${down - killedAt} ms after the kill ` +
          `(checks every ${checks.interMs} ms, ${checks.fall} to fall); ${errors.length} failed, all in flight at the kill ` +
          `(${sentAfterKill} sent after it); ${ok.length} answered`,
      );
      expect(sentAfterKill).toBe(0);
      expect(down - killedAt).toBeLessThan(checks.interMs * (checks.fall + 2) + 1_000);
      await expectRecordedOnce(ok);
    }, 120_000);
  });
}
