export * from "./limit-store.ts";
