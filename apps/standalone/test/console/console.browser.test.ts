import { type MockProvider, startMockProviderB } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, operatorToken, startHarness, untilCosted } from "../harness.ts";
import { catalogCredentials, putChatCatalogModel } from "../support/routed-workloads.ts";
import { browserWanted, type ConsoleBrowser, openBrowser } from "./browser.ts";

if (!browserWanted)
  console.log("console browser tests skipped: no /usr/bin/chromium (scripts/install-chromium.sh)");

// One browser, one page and one process for the whole flow, in the order a person would go.
describe.skipIf(!browserWanted)("the console in a browser", () => {
  let h: Harness;
  let catalogB: MockProvider;
  let b: ConsoleBrowser;
  let madeKey = "";
  const url = (path: string) => `${h.gateway.url}${path}`;

  beforeAll(async () => {
    h = await startHarness({ credentials: catalogCredentials });
    catalogB = await startMockProviderB();
    await putChatCatalogModel(h, "canary-chat", catalogB.url);
    b = await openBrowser();
  });
  afterAll(async () => {
    await b?.close();
    await catalogB?.close();
    await h?.close();
  });

  async function signIn(credential: string) {
    await b.page.goto(url("/console"));
    expect(new URL(b.page.url()).pathname).toBe("/console/sign-in");
    await b.page.getByLabel("Org API key (sk_…) or operator token").fill(credential);
    await b.page.getByRole("button", { name: "Sign in" }).click();
    await b.page.waitForURL((u) => u.pathname !== "/console/sign-in");
  }

  async function signOut() {
    await b.page.getByRole("button", { name: "Sign out" }).click();
    await b.page.waitForURL((u) => u.pathname === "/console/sign-in");
  }

  const project = (rest: string) => url(`/console/projects/${h.projectId}${rest}`);

  it("signs in with the org's key: a session cookie, nothing in the URL or the browser's storage", async () => {
    await b.page.goto(url("/console/sign-in"));
    await b.accessible();
    await b.screenshot("sign-in");
    await signIn(h.apiKey);
    expect(new URL(b.page.url()).pathname).toBe("/console/projects");
    expect(b.page.url()).not.toContain(h.apiKey);
    const cookies = await b.page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({
      name: "gateway_console",
      httpOnly: true,
      sameSite: "Strict",
      path: "/console",
    });
    expect(cookies[0]!.value).not.toContain(h.apiKey);
    const stored = await b.page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).toBe("{}{}");
    await expect(b.page.getByRole("link", { name: "Default" })).toBeDefined();
    await b.accessible();
    await b.screenshot("projects");
  });

  it("creates a key and shows its value once", async () => {
    await b.page.goto(url("/console/keys"));
    await b.page.getByLabel("Name").fill("console-made");
    await b.page.getByRole("button", { name: "Create key" }).click();
    const value = (await b.page.locator("#new-key-value").textContent()) ?? "";
    expect(value).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    madeKey = value;
    await b.accessible();
    await b.screenshot("keys");
    // the key works on the gateway at once
    expect(await h.chat(value)).toBe(200);
    await b.page.goto(url("/console/keys"));
    expect(await b.page.content()).not.toContain(value);
    expect(await b.page.getByRole("cell", { name: "console-made", exact: true }).count()).toBe(1);
  });

  it("finds JSON and streamed calls in the log within seconds, with a stream's frames and a call's cost", async () => {
    const priced = await h.op("POST", "/operator/v1/prices", {
      model: "gpt-5.4-mini",
      effective_from: "2026-01-01T00:00:00Z",
      input_usd_per_mtok: "0.25",
      cache_write_5m_usd_per_mtok: "0",
      cache_write_1h_usd_per_mtok: "0",
      cache_read_usd_per_mtok: "0.025",
      output_usd_per_mtok: "2",
    });
    expect(priced.status).toBe(201);
    const chat = async (stream: boolean) => {
      const res = await fetch(url("/v1/chat/completions"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "x-gateway-upstream-key": "sk-up",
          "content-type": "application/json",
          // the mock spaces a stream's frames, so each arrives on its own with its own offset
          ...(stream ? { "x-mock-frame-delay-ms": "15" } : {}),
        },
        body: JSON.stringify({
          model: "gpt-5.4-mini",
          messages: [{ role: "user", content: "hello console" }],
          ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
        }),
      });
      expect(res.status).toBe(200);
      await res.text();
      return res.headers.get("x-gateway-request-id")!;
    };
    const jsonCall = await chat(false);
    const streamCall = await chat(true);

    // the log, as a person reloads it: both calls within seconds, newest first
    await eventually(async () => {
      await b.page.goto(project("/calls"));
      const links = await b.page
        .getByRole("link", { name: /^\d{4}-/ })
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      return links.some((href) => href?.endsWith(streamCall)) &&
        links.some((href) => href?.endsWith(jsonCall))
        ? true
        : undefined;
    }, 10_000);
    await b.accessible();
    await b.screenshot("calls");
    await b.page.goto(project(`/calls?route=primary&mode=byo&request_id=${streamCall}`));
    expect(await b.page.getByRole("link", { name: /^\d{4}-/ }).count()).toBe(1);

    await untilCosted(h.gateway, [jsonCall, streamCall]);
    await b.page.goto(project(`/calls/${streamCall}`));
    const frames = b.page.getByRole("table", { name: /^Stream frames/ });
    expect(await frames.getByRole("row").count()).toBeGreaterThan(3);
    const offsets = await frames.locator("tbody tr td:nth-child(2)").allTextContents();
    const ms = offsets.map((o) => Number(/^(\d+(?:\.\d+)?) ms$/.exec(o)?.[1]));
    expect(ms.every((m) => Number.isFinite(m))).toBe(true);
    // offsets from the request, in the order the frames were sent, spaced by the mock's delay
    expect(ms).toEqual([...ms].sort((a, b) => a - b));
    expect(ms.at(-1)! - ms[0]!).toBeGreaterThanOrEqual(15);
    expect(await b.page.locator("#cost").textContent()).toMatch(/Cost \$\d/);
    expect(await b.page.locator("#price-entry").textContent()).toContain(priced.json.id);
    await b.accessible();
    await b.screenshot("call");
    await frames.scrollIntoViewIfNeeded();
    await b.screenshot("call-frames");
  });

  it("shows the overview: totals and charts over a window, in UTC, and by model", async () => {
    const totals = await eventually(async () => {
      await b.page.goto(project("/overview?window=hour"));
      const cells = await b.page
        .getByRole("table", { name: /^Totals/ })
        .locator("tbody td")
        .allTextContents();
      return cells[0] === "3" ? cells : undefined;
    }, 10_000);
    expect(totals[1]).toBe("0");
    expect(totals[2]).toMatch(/^\$0\.\d{6}$/);
    expect(await b.page.getByText("time zone UTC").count()).toBe(1);
    // the charts are drawn by the client script (uPlot), under the CSP
    await b.page.locator("figure .uplot").first().waitFor();
    expect(await b.page.locator("figure .uplot").count()).toBe(4);
    await b.accessible();
    await b.screenshot("overview");
    await b.page.getByRole("link", { name: "model" }).click();
    await b.page.waitForURL((u) => u.searchParams.get("group_by") === "model");
    expect(new URL(b.page.url()).searchParams.get("window")).toBe("hour");
    expect(
      await b.page
        .getByRole("table", { name: /^By model/ })
        .getByRole("row")
        .filter({ hasText: "gpt-5.4-mini" })
        .count(),
    ).toBe(1);
    await b.accessible();
  });

  it("sets a 30 % route and shows the declared share beside the observed one", async () => {
    const created = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "split",
    });
    expect(created.status).toBe(201);
    await b.page.goto(project("/routes"));
    const row = b.page.getByRole("row").filter({ hasText: "split" });
    await row.getByLabel("Catalog model of split").selectOption("canary-chat");
    await row.getByLabel("Share of split in percent").fill("30");
    await row.getByRole("button", { name: "Save route of split" }).click();
    await b.page.waitForURL((u) => u.searchParams.has("saved"));
    expect(await b.page.getByRole("status").textContent()).toBe("Route of split saved.");
    const routes = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`);
    expect(routes.json.workloads.find((w: { name: string }) => w.name === "split")).toMatchObject({
      route_model_id: "canary-chat",
      route_traffic_pct: 30,
    });

    const calls = 200;
    for (let i = 0; i < calls; i += 20) {
      const batch = Array.from({ length: 20 }, () => h.chat(h.apiKey, { "x-gateway-workload": "split" }));
      expect(await Promise.all(batch)).toEqual(Array(20).fill(200));
    }
    const observed = await eventually(async () => {
      await b.page.goto(project("/routes"));
      const cells = b.page.getByRole("row").filter({ hasText: "split" });
      const requests = await cells.locator("td").nth(6).textContent();
      return requests === String(calls) ? cells : undefined;
    }, 10_000);
    expect(await observed.locator(".declared").textContent()).toBe("30 %");
    const share = Number.parseFloat((await observed.locator(".observed").textContent()) ?? "");
    // 200 draws at 30 %: 99.9 % of runs land within ±11 points
    expect(share).toBeGreaterThan(19);
    expect(share).toBeLessThan(41);
    await b.accessible();
    await b.screenshot("routes");
  });

  it("changes a workload's capture and sampling", async () => {
    await b.page.goto(project("/workloads"));
    const row = b.page.getByRole("row").filter({ hasText: "split" });
    await row.getByLabel("Sampling of split").fill("0.5");
    await row.getByRole("button", { name: "Save capture of split" }).click();
    await b.page.waitForURL((u) => u.searchParams.has("saved"));
    expect(await b.page.getByRole("status").textContent()).toBe("Workload split saved.");
    const workloads = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`);
    expect(workloads.json.workloads.find((w: { name: string }) => w.name === "split")).toMatchObject({
      capture_enabled: true,
      capture_sample_rate: 0.5,
    });
    await b.accessible();
  });

  it("shows provider health, workload status, and limits with their use", async () => {
    await b.page.goto(project("/health?window=1h"));
    expect(
      await b.page
        .getByRole("table", { name: "Workload status" })
        .getByRole("row")
        .filter({ hasText: "split" })
        .count(),
    ).toBe(1);
    await b.accessible();
    await b.screenshot("health");
    await h.cp("PUT", `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/limits`, {
      requests_per_minute: 1000,
    });
    await b.page.goto(project("/limits"));
    expect(await b.page.getByRole("row").filter({ hasText: "/ 1000" }).count()).toBe(1);
    await b.accessible();
  });

  it("revokes a key: the gateway refuses it", async () => {
    await b.page.goto(url("/console/keys"));
    await b.page.getByRole("button", { name: "Revoke console-made" }).click();
    await b.page.waitForURL((u) => u.searchParams.has("revoked"));
    expect(await b.page.getByRole("cell", { name: "console-made", exact: true }).count()).toBe(0);
    await b.accessible();
    await eventually(async () => ((await h.chat(madeKey)) === 401 ? true : undefined), 5_000);
  });

  it("signs out, and the operator signs in to the catalog, prices and orgs", async () => {
    await signOut();
    await b.page.goto(url("/console/keys"));
    expect(new URL(b.page.url()).pathname).toBe("/console/sign-in");
    await signIn(operatorToken);
    expect(new URL(b.page.url()).pathname).toBe("/console/operator/orgs");
    await b.accessible();
    await b.page.goto(url("/console/operator/catalog"));
    expect(await b.page.getByRole("row").filter({ hasText: "chat_completions" }).count()).toBe(1);
    await b.accessible();
    await b.page.goto(url("/console/operator/prices"));
    await b.accessible();
    await b.screenshot("prices");
    await signOut();
    expect(b.errors).toEqual([]);
  });
});
