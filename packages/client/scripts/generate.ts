// `pnpm client:generate`: rewrites src/schema.ts from the control plane's current routes.
import { writeFile } from "node:fs/promises";
import { generateSchema, schemaFile } from "./schema-source.ts";

await writeFile(schemaFile, await generateSchema());
console.log(`wrote ${schemaFile}`);
