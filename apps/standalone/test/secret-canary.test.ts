import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.ts";
import { type StandaloneProcess, startStandaloneProcess } from "./support/standalone-process.ts";

/** A value that can only have come from where it was planted. */
const canary = (where: string) => `canary-${where}-${randomBytes(12).toString("hex")}`;

/** The process's own secrets: what a leak would most hurt. */
const processSecrets = {
  GATEWAY_OPERATOR_TOKEN: canary("operator-token"),
  GATEWAY_CURSOR_SECRET: canary("cursor-secret"),
  GATEWAY_PROVIDER_B_MANAGED_KEY: canary("responses-key"),
  GATEWAY_UPSTREAM_KEY_CANARY: canary("catalog-key"),
};

/** Every header a client may carry a credential in, each with a canary of its own. */
const clientCredentialHeaders = {
  "x-gateway-upstream-key": canary("upstream-key"),
  cookie: `session=${canary("cookie")}`,
  "proxy-authorization": `Basic ${canary("proxy-auth")}`,
  "x-api-key-extra": canary("x-api-key-extra"),
  "api-key": canary("api-key"),
  "x-goog-api-key": canary("goog-api-key"),
  "x-amz-security-token": canary("amz-token"),
  "x-auth-token": canary("auth-token"),
  "x-client-secret": canary("client-secret"),
  "x-session-id": canary("session"),
};

/**
 * Canaries in every credential header a client can send and in every secret of the process,
 * through every kind of call (BYO, managed, responses, errors, the operator surface): none of
 * them may be found in a capture, a log line, a stored row, the journal or an answer.
 */
describe("secrets: a canary in every credential, found nowhere", () => {
  let p: StandaloneProcess;
  const answers: string[] = [];
  let projectId: string;

  beforeAll(async () => {
    p = await startStandaloneProcess({ env: processSecrets });
  }, 60_000);
  afterAll(() => p?.close());

  /** A call whose whole answer (status line, headers, body) is kept to be searched. */
  async function call(
    path: string,
    init: { method?: string; headers: Record<string, string>; body?: unknown },
  ) {
    const res = await fetch(`${p.url}${path}`, {
      method: init.method ?? "POST",
      headers: { "content-type": "application/json", ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    answers.push(`${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${text}`);
    return { status: res.status, text, requestId: res.headers.get("x-gateway-request-id") };
  }

  it("leaves no canary in captures, logs, stored rows, the journal or answers", async () => {
    const operator = { authorization: `Bearer ${processSecrets.GATEWAY_OPERATOR_TOKEN}` };
    const org = { authorization: `Bearer ${p.apiKey}` };
    projectId = JSON.parse(
      (await call(`/admin/v1/orgs/${p.orgId}/projects/default`, { headers: org })).text,
    ).id;
    const catalog = await call("/operator/v1/models/canary-chat", {
      method: "PUT",
      headers: operator,
      body: {
        display_name: "Canary",
        deployments: [
          {
            provider_label: "provider_b",
            wire_format: "chat_completions",
            base_url: p.mocks.providerB.url,
            upstream_model: "gpt-5.4-nano",
            credential_env: "GATEWAY_UPSTREAM_KEY_CANARY",
          },
        ],
      },
    });
    expect(catalog.status).toBe(201);

    const chat = (stream: boolean, model = "gpt-5.4-mini") => ({
      model,
      stream,
      messages: [{ role: "user", content: "canary check" }],
    });
    const recorded: string[] = [];
    const expectOk = (r: { status: number; requestId: string | null }) => {
      expect(r.status).toBe(200);
      recorded.push(r.requestId!);
    };
    const everyHeader = { ...org, ...clientCredentialHeaders };
    expectOk(await call("/v1/chat/completions", { headers: everyHeader, body: chat(false) }));
    expectOk(await call("/v1/chat/completions", { headers: everyHeader, body: chat(true) }));
    const { "x-gateway-upstream-key": upstreamKey, ...withoutUpstreamKey } = clientCredentialHeaders;
    expectOk(
      await call("/v1/messages", {
        headers: {
          ...withoutUpstreamKey,
          "x-api-key": p.apiKey,
          "x-gateway-upstream-key": upstreamKey,
          "anthropic-version": "2023-06-01",
        },
        body: { model: "claude-sonnet-5", max_tokens: 16, messages: [{ role: "user", content: "canary" }] },
      }),
    );
    // managed: the operator's catalog credential and the responses key go upstream, nowhere else
    expectOk(
      await call("/v1/chat/completions", {
        headers: { ...org, ...withoutUpstreamKey },
        body: chat(false, "canary-chat"),
      }),
    );
    expectOk(
      await call("/v1/responses", {
        headers: { ...org, ...withoutUpstreamKey },
        body: { model: "gpt-5.4-mini", input: "canary" },
      }),
    );
    // refusals: a wrong gateway key, a wrong operator token, a bad body on the operator surface
    const wrongKey = `sk_${canary("wrong-key")}`;
    expect(
      (
        await call("/v1/chat/completions", {
          headers: { authorization: `Bearer ${wrongKey}` },
          body: chat(false),
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call("/operator/v1/orgs", {
          method: "GET",
          headers: { authorization: `Bearer ${canary("bad-op")}` },
        })
      ).status,
    ).toBe(401);
    expect((await call("/operator/v1/prices", { headers: operator, body: { model: 1 } })).status).toBe(400);

    // every call is captured before anything is searched
    for (const id of recorded) {
      await eventually(async () => {
        const r = await fetch(`${p.url}/customer/v1/orgs/${p.orgId}/projects/${projectId}/captures/${id}`, {
          headers: org,
        });
        await r.arrayBuffer();
        return r.status === 200 ? true : undefined;
      }, 10_000);
    }
    // the stored captures as the API answers them are answers too
    for (const id of recorded)
      await call(`/customer/v1/orgs/${p.orgId}/projects/${projectId}/captures/${id}`, {
        method: "GET",
        headers: org,
      });
    // a clean stop: the journal settles, the database checkpoints, every log line is out
    p.app.child.kill("SIGTERM");
    expect(await p.app.exited).toBe(0);

    const planted = [
      ...Object.values(processSecrets),
      ...Object.values(clientCredentialHeaders),
      p.apiKey,
      wrongKey,
    ].map((value) => value.replace(/^(Basic |session=)/, ""));
    const files = (await readdir(p.dataDir, { recursive: true, withFileTypes: true })).filter((f) =>
      f.isFile(),
    );
    const places: [string, Buffer][] = [
      // less the first-start banner, which prints the starter key once, on purpose
      ["the process's output", Buffer.from(p.app.output().replace(/^ {2}api key: +sk_\w+$/m, ""))],
      ["the answers", Buffer.from(answers.join("\n"))],
      ...(await Promise.all(
        files.map(
          async (f) =>
            [join(f.parentPath, f.name), await readFile(join(f.parentPath, f.name))] as [string, Buffer],
        ),
      )),
    ];
    const found = planted.flatMap((secret) =>
      places
        .filter(([, bytes]) => bytes.includes(secret))
        .map(([where]) => `${secret.slice(0, 24)}… in ${where}`),
    );
    const bytes = places.reduce((n, [, b]) => n + b.length, 0);
    console.log(
      `secret canaries: ${planted.length} planted, ${recorded.length} calls recorded, ${places.length} places ` +
        `(${(bytes / 1048576).toFixed(1)} MiB) searched, ${found.length} found`,
    );
    expect(found).toEqual([]);
    // and the search can find: the calls' own text is there, in the captures and the answers
    expect(places.some(([, b]) => b.includes("canary check"))).toBe(true);
  }, 120_000);
});
