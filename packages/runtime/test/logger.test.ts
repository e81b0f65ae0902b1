import { describe, expect, it } from "vitest";
import { createLogger, type LogLevel } from "../src/logger.ts";

const capture = (level: LogLevel = "info") => {
  const lines: string[] = [];
  const log = createLogger("unit", { level, write: (line) => lines.push(line) });
  return { log, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
};

describe("logger", () => {
  it("writes one JSON object per line: time, level, component, the fields, message", () => {
    const { log, records } = capture();
    log.info("listening", { url: "http://127.0.0.1:1" });
    const [record] = records();
    expect(Object.keys(record!)).toEqual(["level", "time", "component", "url", "message"]);
    expect(record).toMatchObject({
      level: "info",
      component: "unit",
      url: "http://127.0.0.1:1",
      message: "listening",
    });
    expect(Number.isNaN(Date.parse(String(record!.time)))).toBe(false);
  });

  it("keeps an error's type, message and stack", () => {
    const { log, records } = capture();
    log.error("failed", { error: new TypeError("boom") });
    const error = records()[0]!.error as { type: string; message: string; stack: string };
    expect(error.type).toBe("TypeError");
    expect(error.message).toBe("boom");
    expect(error.stack).toContain("logger.test.ts");
  });

  it("drops what is below its level", () => {
    const { log, records } = capture("warn");
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(records().map((r) => r.message)).toEqual(["w", "e"]);
    const quiet = capture();
    quiet.log.debug("hidden at info");
    expect(quiet.records()).toEqual([]);
  });
});
