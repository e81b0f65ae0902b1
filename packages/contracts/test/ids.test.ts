import { describe, expect, it } from "vitest";
import { newId } from "../src/index.ts";

describe("newId", () => {
  it("mints prefixed, unique ids that sort by creation", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("request"));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
  });
});
