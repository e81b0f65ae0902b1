export * from "./capture-envelope.ts";
export * from "./capture-writer.ts";
