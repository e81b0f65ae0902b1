export * from "./blob-store.ts";
export * from "./fs-blob-store.ts";
export * from "./s3-blob-store.ts";
