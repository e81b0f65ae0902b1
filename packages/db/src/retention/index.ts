export { createPartitionsAhead } from "./day-partitions.ts";
export { pruneCalls } from "./prune-calls.ts";
export { pruneCaptures } from "./prune-captures.ts";
export { type Retention, retentionDefaults, retentionOf, setRetention } from "./settings.ts";
