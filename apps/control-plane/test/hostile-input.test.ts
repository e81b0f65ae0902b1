import { type Json, operatorToken } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

/** Input a fuzzer or an attacker sends: every one is a 4xx that says what is wrong, never a 500. */
describe("control plane: hostile input", () => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane();
  });
  afterAll(() => h.close());

  const send = async (method: string, path: string, token: string, body?: string) => {
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
    });
    return { status: res.status, json: (await res.json()) as Json };
  };

  it("refuses U+0000 in a path, a query string or a body with 400, on every surface", async () => {
    const org = `/admin/v1/orgs/${h.orgId}`;
    const customer = `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}`;
    const cases: [string, string, string, string?][] = [
      ["GET", `${org}/projects/a%00b`, h.apiKey],
      ["GET", `/admin/v1/orgs/org_%00/projects`, h.apiKey],
      ["GET", `${org}/projects?cursor=%00`, h.apiKey],
      ["GET", `${customer}/captures?workload=%00`, h.apiKey],
      ["POST", `${org}/projects`, h.apiKey, JSON.stringify({ slug: "nul", name: "a\u0000b" })],
      ["POST", `${customer}/workloads`, h.apiKey, JSON.stringify({ name: "w\u0000" })],
      ["PUT", "/operator/v1/models/m", operatorToken, '{"display_name":"x\\u0000","deployments":[]}'],
      ["POST", "/operator/v1/orgs", operatorToken, JSON.stringify({ "na\u0000me": "x" })],
      ["GET", "/operator/v1/prices?model=%00", operatorToken],
    ];
    for (const [method, path, token, body] of cases) {
      const res = await send(method, path, token, body);
      expect({ path, status: res.status, code: res.json.error.code }).toEqual({
        path,
        status: 400,
        code: "bad_request",
      });
      expect(res.json.error.message).toContain("U+0000");
    }
  });

  it("answers a wrong operator token 401 whatever its length or bytes, so none tells the length", async () => {
    const sameLengthNonAscii = "é".repeat(operatorToken.length);
    for (const token of [
      sameLengthNonAscii,
      "x",
      `${operatorToken}x`,
      "ü".repeat(operatorToken.length / 2),
    ]) {
      const res = await send("GET", "/operator/v1/orgs", token);
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe("unauthorized");
    }
  });

  it("refuses a forged cursor with 400, whatever its bytes", async () => {
    const real = await send("GET", "/operator/v1/orgs?limit=1", operatorToken);
    expect(real.status).toBe(200);
    const payload = String(real.json.cursor ?? "eyJ9.x").split(".")[0];
    for (const cursor of [".", `${payload}.`, `${payload}.${"é".repeat(43)}`, `${payload}.ü`, "a.b.c"]) {
      const res = await send(
        "GET",
        `/operator/v1/orgs?limit=1&cursor=${encodeURIComponent(cursor)}`,
        operatorToken,
      );
      expect({ cursor, status: res.status }).toEqual({ cursor, status: 400 });
    }
  });

  it("bounds a price's effective_from to 2000-9999, and the list keeps answering", async () => {
    const price = (effective_from: string) =>
      send(
        "POST",
        "/operator/v1/prices",
        operatorToken,
        JSON.stringify({
          model: "hostile-date",
          effective_from,
          input_usd_per_mtok: "1",
          cache_write_5m_usd_per_mtok: "1",
          cache_write_1h_usd_per_mtok: "1",
          cache_read_usd_per_mtok: "1",
          output_usd_per_mtok: "1",
        }),
      );
    for (const date of [
      "0020-02-29T00:00:00Z",
      "0000-01-01T00:00:00Z",
      "0099-12-31T00:00:00Z",
      "1999-12-31T23:59:59Z",
    ]) {
      const res = await price(date);
      expect({ date, status: res.status }).toEqual({ date, status: 400 });
      expect(res.json.error.message).toContain("effective_from");
    }
    expect((await price("2000-01-01T00:00:00Z")).status).toBe(201);
    expect((await price("9999-12-31T00:00:00Z")).status).toBe(201);
    const list = await send("GET", "/operator/v1/prices?model=hostile-date", operatorToken);
    expect(list.status).toBe(200);
    expect(list.json.prices.map((p: Json) => p.effective_from)).toEqual([
      "2000-01-01T00:00:00.000Z",
      "9999-12-31T00:00:00.000Z",
    ]);
  });
});
