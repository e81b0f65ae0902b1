export * from "./bullmq-queue.ts";
export * from "./in-process-queue.ts";
export * from "./job-queue.ts";
