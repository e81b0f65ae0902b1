import { describe, expect, it, vi } from "vitest";
import { openSpool, type SpoolRecord } from "../src/index.ts";
import { busWithoutBroker } from "./support/bus-without-broker.ts";
import { spooledLines, tempDirs } from "./support/spool-dirs.ts";

// Appends fail (as on a full disk) while `failing` is above zero; `torn` writes half first.
const disk = vi.hoisted(() => ({ failing: 0, torn: false }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    appendFile: async (...args: Parameters<typeof real.appendFile>) => {
      if (disk.failing > 0) {
        disk.failing--;
        const [path, data] = args;
        if (disk.torn && typeof data === "string")
          await real.appendFile(path, data.slice(0, data.length / 2));
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      }
      return real.appendFile(...args);
    },
  };
});

const tempDir = tempDirs("spool-failure-");

describe("a spool append that fails", () => {
  it("leaves the events in the kafka bus's memory for the next attempt", async () => {
    const spoolDir = await tempDir();
    const bus = await busWithoutBroker(spoolDir);
    // the first after the failed send, the second from the flush's next try
    disk.failing = 2;
    for (let i = 0; i < 10; i++) bus.publish("t", `k${i}`, { i });
    await bus.flush();
    await bus.close();
    expect(disk.failing).toBe(0);
    expect(await spooledLines(spoolDir)).toHaveLength(10);
  });

  it("when torn, leaves the segment readable and the next append whole", async () => {
    const dir = await tempDir();
    const spool = await openSpool(dir);
    disk.failing = 1;
    disk.torn = true;
    await expect(spool.append([{ topic: "t", key: "a", value: '{"n":1}' }])).rejects.toThrow("ENOSPC");
    disk.torn = false;
    await spool.append([{ topic: "t", key: "b", value: '{"n":2}' }]);
    const records: SpoolRecord[] = [];
    let skipped = 0;
    for (let segment = await spool.oldest(); segment; segment = await spool.oldest()) {
      records.push(...segment.records);
      skipped += segment.skipped;
      await spool.remove(segment.name);
    }
    expect(records).toEqual([{ topic: "t", key: "b", value: '{"n":2}' }]);
    expect(skipped).toBe(1);
  });
});
