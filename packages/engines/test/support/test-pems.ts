import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway CA (certificate and key) made with openssl, and files that are not PEM, in a new directory. */
export function testPems() {
  const dir = mkdtempSync(join(tmpdir(), "engine-settings-"));
  const file = (name: string) => join(dir, name);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=engine settings test CA",
      "-keyout",
      file("ca.key"),
      "-out",
      file("ca.crt"),
    ],
    { stdio: "ignore" },
  );
  writeFileSync(file("not-pem.txt"), "hello\n");
  /** Writes `text` to the file `name` and gives its path. */
  const write = (name: string, text: string) => {
    writeFileSync(file(name), text);
    return file(name);
  };
  return { file, write };
}
