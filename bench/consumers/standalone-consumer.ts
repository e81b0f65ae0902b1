/**
 * `pnpm bench:standalone-consumer`: what storing one call costs the all-in-one process, its
 * serving aside. Per round: the process started in this one (`startStandalone`, a fresh data dir
 * on SQLite), `BENCH_CONSUMER_EVENTS` captured, priceable call events built with the gateway's own
 * builder (call-events.ts), published on its in-process bus at `BENCH_RATE` a second (as calls arrive
 * under load, so its batches are as large as they are then), and drained (`bus.flush`). Reported: the process's CPU per
 * event over the publishing and the drain (the journal's writes, the capture segments, the index
 * rows, the call rows, their pricing, rollups and histograms), rounds in order and their median.
 * No HTTP, no upstream: the figure is the consumers' share of `pnpm bench`'s CPU per request,
 * without its noise.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callsTopic, rememberFrame, silentLogger } from "@gateway/contracts";
import { parseEnv } from "../../apps/standalone/src/env.ts";
import { startStandalone } from "../../apps/standalone/src/standalone.ts";
import { buildCallEvents } from "./call-events.ts";

const events = Number(process.env.BENCH_CONSUMER_EVENTS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
/** Events a second, published every 10 ms: about the all-in-one's rate under `pnpm bench`. */
const rate = Number(process.env.BENCH_RATE ?? 3000);

async function round(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-bench-consumer-"));
  const app = await startStandalone(parseEnv({ GATEWAY_DATA_DIR: dataDir, PORT: "0" }), {
    log: silentLogger,
  });
  try {
    const org = {
      orgId: app.firstStart!.orgId,
      projectId: "proj_bench",
      workloadId: "wl_bench",
      apiKeyId: "key_bench",
      apiKey: "",
    };
    const built = buildCallEvents(org, events, {
      spillBytes: 1 << 20,
      maxBytes: 32 << 20,
      spillDir: join(dataDir, "answers"),
    });
    const { bus } = app.internals;
    const profiling = process.env.BENCH_PROFILE === "1" ? await startProfile() : null;
    const before = process.cpuUsage();
    const perTick = Math.max(1, Math.round(rate / 100));
    for (let i = 0; i < built.length; i++) {
      const { requestId, frame, event } = built[i]!;
      // as the gateway's publisher does on a bus that hands its Buffers over (call-event.ts)
      if (bus.handsOverPayloads) rememberFrame(frame, event);
      bus.publish(callsTopic, requestId, frame);
      if (i % perTick === perTick - 1) await sleep(10);
    }
    await bus.flush();
    // (a deployment that prices in a job: its jobs are part of storing the calls)
    await app.internals.jobs.idle();
    const used = process.cpuUsage(before);
    await profiling?.stop();
    return (used.user + used.system) / built.length;
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A CPU profile of the measured window alone, written to bench/.out/standalone-consumer.cpuprofile. */
async function startProfile() {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync("bench/.out/standalone-consumer.cpuprofile", JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const perEvent: number[] = [];
for (let r = 1; r <= rounds; r++) {
  perEvent.push(await round());
  console.log(`round ${r}: ${perEvent.at(-1)!.toFixed(1)} µs of CPU per call event`);
}
const sorted = [...perEvent].sort((a, b) => a - b);
console.log(
  `median of ${rounds}: ${sorted[Math.floor(rounds / 2)]!.toFixed(1)} µs per call event (${events} events a round)`,
);
