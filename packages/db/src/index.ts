export * from "./client.ts";
export * from "./costing/index.ts";
export * from "./json-rows.ts";
export * from "./migrate.ts";
export * from "./reports/index.ts";
export * from "./schema/index.ts";
export * from "./sql-rows.ts";
export * from "./test-databases.ts";
