import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { is, Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../src/schema/index.ts";

const apps = fileURLToPath(new URL("../../../apps/", import.meta.url));

/** Every TypeScript source file of the apps, as its path under apps/. */
function appSources(): string[] {
  return readdirSync(apps).flatMap((app) =>
    readdirSync(`${apps}${app}/src`, { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(".ts"))
      .map((path) => `${app}/src/${path}`),
  );
}

/** The database drivers and query builder: only packages/db may talk to them. */
const sqlPackages = /^(drizzle-orm|postgres|@electric-sql\/\w+)(\/|$)/;
const tables = new Set(Object.entries(schema).flatMap(([name, value]) => (is(value, Table) ? [name] : [])));

/** What in one source file would put SQL outside packages/db: one line per finding. */
function sqlOutsideDb(source: string): string[] {
  const findings: string[] = [];
  for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
    if (sqlPackages.test(specifier!)) findings.push(`imports ${specifier}`);
  }
  // A table is what a query is built from: apps take rows and row types from named functions.
  for (const [, names] of source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"@gateway\/db"/g)) {
    for (const name of names!.split(",").map((n) =>
      n
        .trim()
        .replace(/^type\s+/, "")
        .replace(/\s+as\s+\w+$/, ""),
    )) {
      if (tables.has(name)) findings.push(`imports the table ${name} from @gateway/db`);
    }
  }
  // drizzle's relational queries need no import at all
  if (/\.query\.\w+\.find(Many|First)\(/.test(source)) findings.push("runs a relational query (db.query…)");
  return findings;
}

describe("SQL lives in packages/db only", () => {
  it("finds the table, driver and query builder imports it is looking for", () => {
    expect(tables).toContain("workloads");
    expect(
      sqlOutsideDb(
        'import { eq } from "drizzle-orm";\nimport { type Db, orgs as o } from "@gateway/db";\nconst x = await import("postgres");\nawait db.query.orgs.findMany();',
      ),
    ).toEqual([
      "imports drizzle-orm",
      "imports postgres",
      "imports the table orgs from @gateway/db",
      "runs a relational query (db.query…)",
    ]);
  });

  it("no app source imports a driver, drizzle or a table, or queries the database itself", () => {
    const sources = appSources();
    expect(sources.length).toBeGreaterThan(50);
    const found = sources.flatMap((path) =>
      sqlOutsideDb(readFileSync(`${apps}${path}`, "utf8")).map((finding) => `apps/${path} ${finding}`),
    );
    expect(found, "move the query into packages/db, behind a named function").toEqual([]);
  });
});
