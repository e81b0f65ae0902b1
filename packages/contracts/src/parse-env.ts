import { z } from "zod";
import { isSecret, withSecretFiles } from "./secret-files.ts";

/**
 * Parses `source` (the process environment) once, failing with one readable message that names
 * every bad variable, one line each. An empty variable (`FOO=` in a compose file or a shell) means
 * "not set". A setting marked `secret` may be given as `<NAME>_FILE` instead (`withSecretFiles`).
 */
export function parseEnvWith<T extends z.ZodType>(
  schema: T,
  source: Record<string, string | undefined>,
): z.output<T> {
  const set = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const secrets = schema instanceof z.ZodObject ? secretNames(schema) : [];
  const files = withSecretFiles(set, secrets);
  const parsed = schema.safeParse(files.source);
  const problems = [
    ...files.problems.values(),
    // a setting whose file failed is reported once, for its file
    ...(parsed.success ? [] : parsed.error.issues)
      .filter((i) => !files.problems.has(String(i.path[0])))
      .map((i) => `${i.path.join(".")}: ${i.message}`),
  ];
  if (problems.length > 0)
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return parsed.data as z.output<T>;
}

function secretNames(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, setting]) => isSecret(setting as z.ZodType))
    .map(([name]) => name);
}
