export * from "./in-process-queue.ts";
export * from "./job-queue.ts";
