import type { Seed } from "./seed.ts";

const WORDS = [
  "amber",
  "basalt",
  "cobalt",
  "delta",
  "ember",
  "fjord",
  "granite",
  "harbor",
  "indigo",
  "juniper",
  "kelp",
  "lantern",
  "meadow",
  "nimbus",
  "orchid",
  "pebble",
  "quartz",
  "river",
  "saffron",
  "tundra",
  "umber",
  "velvet",
  "willow",
  "zephyr",
];

/**
 * The assistant's reply as streaming pieces (first piece capitalised, later ones with a leading
 * space). Always at least four pieces, so every stream has several content deltas.
 */
export function replyPieces(seed: Seed): string[] {
  const count = seed.int("reply-length", 4, 9);
  const pieces: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = WORDS[seed.int(`reply-word-${i}`, 0, WORDS.length - 1)] ?? "mock";
    pieces.push(i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : ` ${word}`);
  }
  pieces[count - 1] += ".";
  return pieces;
}

/** Rough token estimate of a request body, like a tokenizer's ~4 bytes per token. */
export function bodyTokens(body: Buffer): number {
  return Math.max(1, Math.ceil(body.length / 4));
}
