import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("./support/resolutions.ts", import.meta.url));

function resolutions(mode: "hooked" | "plain") {
  const out = execFileSync(process.execPath, ["--experimental-strip-types", script, mode], {
    encoding: "utf8",
  });
  return JSON.parse(out) as {
    seen: Record<string, { url: string; format: string | null | undefined }>;
    exports: Record<string, string[]>;
  };
}

describe("loadDrizzleQuickly", () => {
  it("resolves every drizzle module the store loads to the same file and format as Node alone", () => {
    const plain = resolutions("plain");
    const hooked = resolutions("hooked");
    // the store's whole import graph of drizzle: its entry points and a few hundred of its files
    expect(Object.keys(plain.seen).length).toBeGreaterThan(200);
    expect(hooked.seen).toEqual(plain.seen);
    expect(hooked.exports).toEqual(plain.exports);
    expect(plain.exports["drizzle-orm"]).toContain("sql");
  });
});
