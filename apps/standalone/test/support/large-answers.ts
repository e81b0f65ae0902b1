import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { request } from "undici";
import { expect } from "vitest";
import { eventually } from "../harness.ts";

const MiB = 1024 * 1024;
/** Each answer's text; its capture and its event carry it whole. */
const answerBytes = 24 * MiB;
const concurrency = 16;

/**
 * docs/decisions.md, "An answer's memory is bounded": a call holds at most 1 MiB of its answer in
 * memory (the rest waits on disk), and answers that outgrew it are recorded one at a time.
 * Recording one makes about seven copies of it (read back, encoded, journaled, stored), and the
 * collector may not have freed a turn's copies before the next turns: the peak grows with the
 * largest answer, not with how many end together. Sixteen 24 MiB answers held whole took about
 * 1 GiB over idle in the standalone process.
 */
const peakBound = 64 * MiB + concurrency * MiB + 20 * answerBytes;

/** Resident set now and at its highest, in bytes, from /proc (Linux). */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

export interface LargeAnswer {
  requestId: string;
  bytes: number;
  sha256: string;
}

/** One call for a large answer (a stream for odd `index`); the SHA-256 of what the client got. */
async function largeCall(gateway: string, apiKey: string, index: number): Promise<LargeAnswer> {
  const res = await request(`${gateway}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      "x-gateway-upstream-key": "sk-upstream-large",
      "x-mock-answer-bytes": String(answerBytes),
    },
    body: JSON.stringify({
      model: "gpt-5.4-mini",
      stream: index % 2 === 1,
      messages: [{ role: "user", content: `large ${index}` }],
    }),
  });
  expect(res.statusCode).toBe(200);
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of res.body) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { requestId: String(res.headers["x-gateway-request-id"]), bytes, sha256: hash.digest("hex") };
}

/**
 * Sixteen 24 MiB answers at once through `gateway`, served by process `pid`: each reaches its
 * client whole and is recorded (`listed` answers the request ids whose captures are listed), and
 * the process's peak memory stays under the documented bound. Prints the figures.
 */
export async function largeAnswersAtOnce(options: {
  label: string;
  gateway: string;
  apiKey: string;
  pid: number;
  listed(): Promise<Set<string>>;
}): Promise<LargeAnswer[]> {
  const { pid } = options;
  const idle = await memoryOf(pid);
  // the peak (VmHWM) starts over from the resident set now
  await writeFile(`/proc/${pid}/clear_refs`, "5");
  const calls = await Promise.all(
    Array.from({ length: concurrency }, (_, i) => largeCall(options.gateway, options.apiKey, i)),
  );
  for (const call of calls) expect(call.bytes).toBeGreaterThan(answerBytes);
  await eventually(async () => {
    const ids = await options.listed();
    return calls.every((c) => ids.has(c.requestId)) ? true : undefined;
  }, 60_000);
  const grew = (await memoryOf(pid)).peak - idle.rss;
  console.log(
    `large answers (${options.label}): ${concurrency} at once of ${answerBytes / MiB} MiB, all captured; ` +
      `idle ${(idle.rss / MiB).toFixed(0)} MiB, peak +${(grew / MiB).toFixed(0)} MiB, ` +
      `bound +${(peakBound / MiB).toFixed(0)} MiB`,
  );
  expect(grew).toBeLessThan(peakBound);
  return calls;
}
