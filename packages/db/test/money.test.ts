import { describe, expect, it } from "vitest";
import {
  picoFromParts,
  picoNumberToUsd,
  picoToUsd,
  priceToPicoPerToken,
  usdToPico,
  usdToPicoNumber,
} from "../src/money.ts";

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

/** The pico-dollars of a decimal as digits alone: the reference the fast paths are held to. */
function picoByDigits(usd: string): bigint {
  const [whole, fraction = ""] = usd.replace(/^-/, "").split(".");
  const pico = BigInt(whole! + fraction.padEnd(12, "0"));
  return usd.startsWith("-") ? -pico : pico;
}

/** A decimal of 1-6 whole digits and 0-12 decimals, random but reproducible. */
function decimals(count: number): string[] {
  let seed = 42;
  const next = (below: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % below;
  };
  const digits = (n: number) => Array.from({ length: n }, () => next(10)).join("");
  return Array.from({ length: count }, () => {
    const places = next(13);
    return `${next(5) === 0 ? "-" : ""}${digits(1 + next(6))}${places ? `.${digits(places)}` : ""}`;
  });
}

describe("dollars as pico-dollars and back", () => {
  const edges = [
    "0",
    "-0",
    "0.000000000001",
    "999.999999999999",
    "1000",
    "9007.199254740991",
    "9007.199254740992",
  ];

  it("reads every decimal of at most 12 places exactly, below $1,000 as a Number too", () => {
    for (const usd of [...edges, ...decimals(5_000)]) {
      const expected = picoByDigits(usd);
      expect(usdToPico(usd), usd).toBe(expected);
      const small = usdToPicoNumber(usd);
      if (small !== null) expect(BigInt(small), usd).toBe(expected);
      // three whole digits or fewer always fit a Number
      if (/^-?\d{1,3}(\.|$)/.test(usd)) expect(small, usd).not.toBeNull();
    }
    expect(usdToPicoNumber("-0")).toBe(0);
    expect(usdToPicoNumber("1000")).toBeNull();
  });

  it("writes the shortest exact text, from a BigInt or a Number alike", () => {
    for (const usd of [...edges, ...decimals(5_000)]) {
      const pico = picoByDigits(usd);
      const text = picoToUsd(pico);
      expect(picoByDigits(text), usd).toBe(pico);
      expect(text, usd).toMatch(/^-?\d+(\.\d*[1-9])?$/);
      if (pico <= BigInt(Number.MAX_SAFE_INTEGER) && pico >= -BigInt(Number.MAX_SAFE_INTEGER))
        expect(picoNumberToUsd(Number(pico)), usd).toBe(text);
    }
    expect(picoToUsd(1_200_000_000n)).toBe("0.0012");
    expect(picoToUsd(-1_500_000_000_000n)).toBe("-1.5");
    expect(picoToUsd(10n ** 30n + 1n)).toBe("1000000000000000000.000000000001");
    expect(() => picoNumberToUsd(0.5)).toThrow();
    expect(() => picoNumberToUsd(2 ** 53)).toThrow();
  });

  it("refuses what is not a decimal of at most 12 places", () => {
    for (const bad of ["", "-", ".5", "1.", "1.0000000000001", "+1", " 1", "1e3", "0x10", "1,5", "١"]) {
      expect(usdToPicoNumber(bad), bad).toBeNull();
      expect(() => usdToPico(bad), bad).toThrow(/not a decimal/);
    }
  });

  it("reads a price per million tokens as the pico-dollars of one token, the same when asked again", () => {
    expect(priceToPicoPerToken("3")).toBe(3_000_000n);
    expect(priceToPicoPerToken("0.075")).toBe(75_000n);
    expect(priceToPicoPerToken("0.075")).toBe(75_000n);
    expect(() => priceToPicoPerToken("0.0000001")).toThrow(/at most 6 decimals/);
    expect(() => priceToPicoPerToken("0.0000001")).toThrow(/at most 6 decimals/);
  });
});
