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
 * space). Always at least four pieces, so every stream has several content deltas. With
 * `answerBytes`, the words repeat into pieces of 64 KiB until the text is about that long.
 */
export function replyPieces(seed: Seed, answerBytes?: number): string[] {
  if (answerBytes !== undefined) return largePieces(seed, answerBytes);
  const count = seed.int("reply-length", 4, 9);
  const pieces: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = WORDS[seed.int(`reply-word-${i}`, 0, WORDS.length - 1)] ?? "mock";
    pieces.push(i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : ` ${word}`);
  }
  pieces[count - 1] += ".";
  return pieces;
}

const largePieceBytes = 64 * 1024;

function largePieces(seed: Seed, answerBytes: number): string[] {
  const words = replyPieces(seed).join("");
  const piece = `${words} `.repeat(Math.ceil(largePieceBytes / (words.length + 1))).slice(0, largePieceBytes);
  const pieces: string[] = [];
  for (let left = answerBytes; left > 0; left -= largePieceBytes) pieces.push(piece.slice(0, left));
  return pieces.length > 0 ? pieces : [words];
}

/** Rough token estimate of a request body, like a tokenizer's ~4 bytes per token. */
export function bodyTokens(body: Buffer): number {
  return Math.max(1, Math.ceil(body.length / 4));
}
