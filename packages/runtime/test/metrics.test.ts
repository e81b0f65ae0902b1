import { describe, expect, it } from "vitest";
import { createMetrics, readWithin, scrapedCounter } from "../src/metrics.ts";

describe("scraped metrics", () => {
  it("read their parts at each scrape; one that fails keeps its last values, and the rest answer", async () => {
    const metrics = createMetrics();
    let sends = 0;
    let stored: number | Error = 4;
    scrapedCounter(metrics, { name: "sends_total", help: "h", read: () => [[{}, sends]] });
    scrapedCounter(metrics, {
      name: "stored_total",
      help: "h",
      read: () => {
        if (stored instanceof Error) throw stored;
        return [[{}, stored]];
      },
    });
    sends = 3;
    expect(await metrics.registry.metrics()).toContain("stored_total 4");
    stored = new Error("the part's store is down: postgres://user:secret@db");
    sends = 5;
    const text = await metrics.registry.metrics();
    expect(text).toContain("sends_total 5");
    // not 0: a counter that went back would read as a restart
    expect(text).toContain("stored_total 4");
    expect(text).not.toContain("secret");
  });

  it("report readiness as app_ready, 0 when the check fails", async () => {
    const metrics = createMetrics();
    metrics.readiness("gateway", () => true);
    metrics.readiness("control-plane", async () => {
      throw new Error("database unreachable");
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('app_ready{app="gateway"} 1');
    expect(text).toContain('app_ready{app="control-plane"} 0');
  });
});

describe("readWithin", () => {
  it("answers the read's value, or the fallback when it fails or does not answer in time", async () => {
    expect(await readWithin(1_000, async () => 7, Number.NaN)).toBe(7);
    expect(
      await readWithin(
        1_000,
        async () => {
          throw new Error("down");
        },
        -1,
      ),
    ).toBe(-1);
    // a store that hangs: the read never settles
    expect(await readWithin(10, () => new Promise<number>(() => {}), Number.NaN)).toBeNaN();
  });
});
