import { describe, expect, it } from "vitest";
import { picoFromParts, picoToUsd } from "../src/money.ts";

describe("a money sum read from SQL as whole micro-dollars plus the rest", () => {
  it("joins its parts exactly, past the integers a float holds", () => {
    // 2^53 + 1 micro-dollars: a float would read it as 2^53
    expect(picoToUsd(picoFromParts("9007199254740993", 5))).toBe("9007199254.740993000005");
    expect(picoFromParts(12n, -3)).toBe(11_999_997n);
    expect(picoFromParts(null, undefined)).toBe(0n);
  });

  it("refuses a fraction instead of rounding it", () => {
    expect(() => picoFromParts(1.5, 0)).toThrow();
    expect(() => picoFromParts({}, 0)).toThrow();
  });
});
