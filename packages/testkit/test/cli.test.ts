import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { A_HEADERS, B_HEADERS, rawRequest } from "./helpers.ts";

const CLI = fileURLToPath(new URL("../src/bin/mock-providers.ts", import.meta.url));

/** Spawns the CLI with plain `node` (type stripping) and reads its one JSON line. */
async function startCli(args: string[]): Promise<{ child: ChildProcess; urls: Record<string, string> }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout?.setEncoding("utf8");
  for await (const chunk of child.stdout ?? []) {
    out += String(chunk);
    if (out.includes("\n")) break;
  }
  return { child, urls: JSON.parse(out) as Record<string, string> };
}

describe("mock-providers CLI", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("prints both URLs, serves, and exits 0 on %s", async (signal) => {
    const { child, urls } = await startCli(["--no-record"]);
    expect(Object.keys(urls)).toEqual(["providerA", "providerB"]);
    expect(urls.providerA).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const a = await rawRequest(urls.providerA ?? "", "/v1/messages/count_tokens", {
      headers: A_HEADERS,
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(a.status).toBe(200);
    const b = await rawRequest(urls.providerB ?? "", "/v1/models", { method: "GET", headers: B_HEADERS });
    expect(b.status).toBe(200);
    const exited = once(child, "exit");
    child.kill(signal);
    expect(await exited).toEqual([0, null]);
  });

  it("honours --port-a and --port-b", async () => {
    const { child: probe, urls: free } = await startCli([]);
    const exited = once(probe, "exit");
    probe.kill("SIGTERM");
    await exited;
    const portA = new URL(free.providerA ?? "").port;
    const portB = new URL(free.providerB ?? "").port;
    const { child, urls } = await startCli(["--port-a", portA, `--port-b=${portB}`]);
    expect(urls).toEqual({ providerA: `http://127.0.0.1:${portA}`, providerB: `http://127.0.0.1:${portB}` });
    const done = once(child, "exit");
    child.kill("SIGTERM");
    expect(await done).toEqual([0, null]);
  });

  it("gives identical requests ids of their own with --fresh-ids", async () => {
    const { child, urls } = await startCli(["--no-record", "--fresh-ids"]);
    const body = JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    });
    const answers = [];
    for (let i = 0; i < 2; i++)
      answers.push(await rawRequest(urls.providerA ?? "", "/v1/messages", { headers: A_HEADERS, body }));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const ids = answers.map((a) => (JSON.parse(a.body.toString("utf8")) as { id: string }).id);
    expect(ids[0]).toMatch(/^msg_/);
    expect(ids[1]).not.toBe(ids[0]);
    expect(answers[1]!.headers["request-id"]).not.toBe(answers[0]!.headers["request-id"]);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect(await exited).toEqual([0, null]);
  });

  it("fails with exit code 1 on a bad flag", async () => {
    const child = spawn(process.execPath, [CLI, "--port-a", "nope"], { stdio: "ignore" });
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
  });
});
