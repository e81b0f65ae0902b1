import { createHash, randomInt } from "node:crypto";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const keyLength = 40;

/** A new `sk_` key: 40 random base62 characters (about 238 bits). */
export function mintKeyValue(): string {
  let value = "sk_";
  for (let i = 0; i < keyLength; i++) value += alphabet[randomInt(alphabet.length)];
  return value;
}

/** Keys are stored and looked up only by this hash. */
export function hashKey(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Prefix, a masked middle, and the last four characters. */
export function obfuscateKey(value: string): string {
  return `sk_${"*".repeat(8)}${value.slice(-4)}`;
}
