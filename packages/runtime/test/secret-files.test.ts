import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { credentialsWithFiles } from "../src/index.ts";

describe("operator credentials given as <NAME>_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "credentials-"));
  const keyFile = join(dir, "provider-key");

  it("reads the file on first use and keeps it (a rotated file counts from the next start)", () => {
    writeFileSync(keyFile, "sk-from-file\n");
    const credentials = credentialsWithFiles(
      (name) => ({ MANAGED_KEY_FILE: keyFile, PLAIN_KEY: "sk-plain" })[name],
    );
    expect(credentials("MANAGED_KEY")).toBe("sk-from-file");
    writeFileSync(keyFile, "sk-rotated\n");
    expect(credentials("MANAGED_KEY")).toBe("sk-from-file");
    expect(credentials("PLAIN_KEY")).toBe("sk-plain");
    expect(credentials("UNSET_KEY")).toBeUndefined();
  });

  it("fails a name set both ways, or a file that cannot be read, naming the setting and not the value", () => {
    const both = credentialsWithFiles((name) => ({ KEY: "sk-secret-value", KEY_FILE: keyFile })[name]);
    expect(() => both("KEY")).toThrow("KEY and KEY_FILE are both set; set one of them");
    const missing = credentialsWithFiles((name) => ({ KEY_FILE: join(dir, "absent") })[name]);
    expect(() => missing("KEY")).toThrow(`KEY_FILE: cannot read ${join(dir, "absent")} (ENOENT)`);
  });
});
