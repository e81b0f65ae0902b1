import { describe, expect, it } from "vitest";
import { eventually } from "../src/index.ts";

describe("eventually", () => {
  it("polls until the probe gives a value, and resolves with it", async () => {
    let tries = 0;
    const value = await eventually(async () => (++tries === 3 ? { tries } : undefined));
    expect(value).toEqual({ tries: 3 });
  });

  it("polls a condition as it is: false means not yet", async () => {
    let tries = 0;
    expect(await eventually(() => ++tries >= 2)).toBe(true);
    expect(tries).toBe(2);
    // 0 and "" are values, not "not yet"
    expect(await eventually(() => 0)).toBe(0);
  });

  it("fails once the time is up", async () => {
    await expect(eventually(() => false, 30)).rejects.toThrow("condition not met within 30 ms");
  });

  it("fails at once with what the probe threw", async () => {
    let tries = 0;
    const failing = eventually(() => {
      tries++;
      throw new Error("broken probe");
    }, 10_000);
    await expect(failing).rejects.toThrow("broken probe");
    expect(tries).toBe(1);
  });
});
