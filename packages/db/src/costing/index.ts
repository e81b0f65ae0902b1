export * from "./measures.ts";
export * from "./price-seed.ts";
export * from "./prices.ts";
export * from "./pricing.ts";
export * from "./record-batch.ts";
export * from "./record-calls.ts";
export * from "./spend-totals.ts";
