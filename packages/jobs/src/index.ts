export * from "./costing-jobs.ts";
export * from "./in-process-queue.ts";
export * from "./job-queue.ts";
