import { createHash } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Deterministic values derived from one request. Each label draws from its own hash so that adding a
 * new field never changes the values of existing ones.
 */
export interface Seed {
  hex(label: string, length: number): string;
  base62(label: string, length: number): string;
  /** Integer in [min, max], both inclusive. */
  int(label: string, min: number, max: number): number;
}

export function seedFrom(salt: string, body: Buffer): Seed {
  const root = createHash("sha256").update(salt).update("\0").update(body).digest();

  const bytes = (label: string, count: number): Buffer => {
    const blocks: Buffer[] = [];
    for (let block = 0, have = 0; have < count; block++) {
      const digest = createHash("sha256").update(root).update(label).update(String(block)).digest();
      blocks.push(digest);
      have += digest.length;
    }
    return Buffer.concat(blocks).subarray(0, count);
  };

  return {
    hex: (label, length) =>
      bytes(label, Math.ceil(length / 2))
        .toString("hex")
        .slice(0, length),
    base62: (label, length) => {
      let out = "";
      for (const byte of bytes(label, length)) out += BASE62.charAt(byte % 62);
      return out;
    },
    int: (label, min, max) => min + (bytes(label, 6).readUIntBE(0, 6) % (max - min + 1)),
  };
}
