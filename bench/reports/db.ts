// The db package's own functions, by path: bench/ is not a dependant of @gateway/db.
export { sql } from "../../packages/db/node_modules/drizzle-orm/index.js";
export {
  freshPostgresDatabase,
  openDb,
  providerHealth,
  rebuildRollups,
  runMigrations,
  usageSummaryGroups,
  workloadStatuses,
} from "../../packages/db/src/index.ts";
