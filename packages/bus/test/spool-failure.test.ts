import { describe, expect, it, vi } from "vitest";
import { openJournal, openSpool, type SpoolRecord } from "../src/index.ts";
import { busWithoutBroker } from "./support/bus-without-broker.ts";
import { spooledRecords, tempDirs } from "./support/spool-dirs.ts";

// Appends fail (as on a full disk) while `failing` is above zero; `torn` writes half first.
// While `piecemeal`, a journal's write takes at most 7 bytes (as a write may take only part).
const disk = vi.hoisted(() => ({ failing: 0, torn: false, piecemeal: false, writes: 0 }));
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    writevSync: (fd: number, buffers: readonly NodeJS.ArrayBufferView[]) => {
      disk.writes++;
      if (!disk.piecemeal) return real.writevSync(fd, buffers);
      const all = Buffer.concat(buffers.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)));
      return real.writeSync(fd, all.subarray(0, 7));
    },
  };
});
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...real,
    appendFile: async (...args: Parameters<typeof real.appendFile>) => {
      if (disk.failing > 0) {
        disk.failing--;
        const [path, data] = args;
        if (disk.torn && Buffer.isBuffer(data))
          await real.appendFile(path, data.subarray(0, data.length / 2));
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
    expect(await spooledRecords(spoolDir)).toHaveLength(10);
  });

  it("when torn, leaves the segment readable and the next append whole", async () => {
    const dir = await tempDir();
    const spool = await openSpool(dir);
    disk.failing = 1;
    disk.torn = true;
    await expect(spool.append([{ topic: "t", key: "a", value: Buffer.from('{"n":1}') }])).rejects.toThrow(
      "ENOSPC",
    );
    disk.torn = false;
    await spool.append([{ topic: "t", key: "b", value: Buffer.from('{"n":2}') }]);
    const records: SpoolRecord[] = [];
    let skipped = 0;
    for (let segment = await spool.oldest(); segment; segment = await spool.oldest()) {
      records.push(...segment.records);
      skipped += segment.skipped;
      await spool.remove(segment.name);
    }
    expect(records).toEqual([{ topic: "t", key: "b", value: Buffer.from('{"n":2}') }]);
    expect(skipped).toBe(1);
  });
});

describe("a journal write the disk takes in parts", () => {
  it("goes on until every byte of every record is written, in order", async () => {
    const dir = await tempDir();
    const { journal } = openJournal(dir, { onError: () => {} });
    const records: SpoolRecord[] = [
      { topic: "t", key: "a", value: Buffer.from([0x00, 0x0a, 0xff, 0xfe]) },
      { topic: "t", key: "b", value: Buffer.from('{"n":2}'), headers: { traceparent: "00-p" } },
      { topic: "t", key: "c", value: Buffer.from([0x00]) },
    ];
    for (const record of records) journal.append(record);
    disk.piecemeal = true;
    disk.writes = 0;
    try {
      await new Promise<void>((resolve) => journal.whenWritten(resolve));
    } finally {
      disk.piecemeal = false;
    }
    expect(disk.writes).toBeGreaterThan(10);
    expect(openJournal(dir, { onError: () => {} }).leftover).toEqual(records);
  });
});
