export * from "./capture-envelope.ts";
export * from "./capture-writer.ts";
export * from "./captures-retention.ts";
