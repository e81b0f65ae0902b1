import type { z } from "zod";

/**
 * Parses `source` (the process environment) once, failing with one readable message that names
 * every bad variable. An empty variable (`FOO=` in a compose file or a shell) means "not set".
 */
export function parseEnvWith<T extends z.ZodType>(
  schema: T,
  source: Record<string, string | undefined>,
): z.output<T> {
  const set = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  return parsed.data;
}
