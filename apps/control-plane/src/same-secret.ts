import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether a presented secret equals the expected one, in time that depends on neither: both are
 * hashed first, so any input (another length, non-ASCII bytes) compares 32 bytes with 32, and
 * neither an error nor the time taken tells the caller the secret's length.
 */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
