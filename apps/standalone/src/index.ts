export * from "./env.ts";
export * from "./standalone.ts";
