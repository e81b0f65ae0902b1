import { readFileSync } from "node:fs";
import type { z } from "zod";

/** The settings whose value is a secret: each may instead be given as a file, `<NAME>_FILE`. */
const secretSchemas = new WeakSet<z.ZodType>();

/**
 * Marks a setting as a secret: `parseEnvWith` then also accepts it as `<NAME>_FILE`, the path of
 * a file holding it (the convention of Docker and Kubernetes secrets), and never shows its value.
 */
export function secret<T extends z.ZodType>(schema: T): T {
  secretSchemas.add(schema);
  return schema;
}

export const isSecret = (schema: z.ZodType) => secretSchemas.has(schema);

/** What a secret whose file cannot be read is parsed as: non-empty, and a URL for the settings that are URLs. */
const unreadable = "unreadable://secret-file";

/** A secret file's content: one trailing newline (what `echo` and most editors add) is not part of it. */
function readSecretFile(path: string): string {
  return readFileSync(path, "utf8").replace(/\r?\n$/, "");
}

/**
 * `source` with each of `names` given as `<NAME>_FILE` replaced by the file's content, and the
 * problems found (a name set both ways, a file that cannot be read) by setting, one line each,
 * naming the setting and the file and never a value.
 */
export function withSecretFiles(
  source: Record<string, string | undefined>,
  names: Iterable<string>,
): { source: Record<string, string | undefined>; problems: Map<string, string> } {
  const resolved = { ...source };
  const problems = new Map<string, string>();
  for (const name of names) {
    const path = source[`${name}_FILE`];
    if (!path) continue;
    delete resolved[`${name}_FILE`];
    if (source[name]) {
      problems.set(name, `${name}_FILE: ${name} is set too; set one of them`);
      continue;
    }
    try {
      resolved[name] = readSecretFile(path);
    } catch (error) {
      problems.set(
        name,
        `${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
      // Set, though unreadable: the rules between settings (a SASL mechanism needs its password)
      // would otherwise see it unset and add a second, misleading line. The value is never used:
      // a problem stops the start.
      resolved[name] = unreadable;
    }
  }
  return { source: resolved, problems };
}

/**
 * Operator credentials by env var name (the names a catalog gives), each also accepted as
 * `<NAME>_FILE`. The names are known only when a call needs one, so a file is read on the first
 * call that needs it, then kept: a rotated secret file takes effect at the next start. A name set
 * both ways, or an unreadable file, fails that call with a message naming the setting.
 */
export function credentialsWithFiles(
  read: (name: string) => string | undefined,
): (name: string) => string | undefined {
  const fromFiles = new Map<string, string>();
  return (name) => {
    const direct = read(name);
    const path = read(`${name}_FILE`);
    if (!path) return direct;
    if (direct) throw new Error(`${name} and ${name}_FILE are both set; set one of them`);
    let value = fromFiles.get(name);
    if (value === undefined) {
      try {
        value = readSecretFile(path);
      } catch (error) {
        throw new Error(
          `${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        );
      }
      fromFiles.set(name, value);
    }
    return value;
  };
}
