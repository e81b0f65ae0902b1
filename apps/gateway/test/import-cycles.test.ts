import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src/", import.meta.url));

/** Each file of the gateway's src and the files of that folder it imports (types included). */
function relativeImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(src).filter((name) => name.endsWith(".ts"))) {
    graph.set(file, importsOf(readFileSync(src + file, "utf8")));
  }
  return graph;
}

/** The files of the same folder a module's text imports or re-exports from. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+"\.\/([^"]+)"/gms)].map((match) => match[1]!);
}

/** The first import cycle found, as the files along it (the first repeated at its end); null when none. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    const at = path.indexOf(file);
    if (at !== -1) return [...path.slice(at), file];
    if (done.has(file)) return null;
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(file);
    return null;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

describe("the gateway's imports", () => {
  it("form no cycle among its own files: each reads on top of the ones it imports", () => {
    const graph = relativeImports();
    expect(graph.get("gateway.ts")).toContain("serve-call.ts");
    expect(findCycle(graph)).toBeNull();
  });

  it("(the check reads type imports, re-exports and imports over several lines, and finds a cycle)", () => {
    const text = [
      'import type { A } from "./a.ts";',
      'import {\n  b,\n  type B,\n} from "./b.ts";',
      'import { c } from "@gateway/c";',
      'export { d } from "./d.ts";',
      'const e = "from \\"./e.ts\\"";',
    ].join("\n");
    expect(importsOf(text)).toEqual(["a.ts", "b.ts", "d.ts"]);
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", []],
      ["d.ts", ["b.ts"]],
    ]);
    expect(findCycle(graph)).toEqual(["b.ts", "d.ts", "b.ts"]);
    expect(
      findCycle(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", []],
        ]),
      ),
    ).toBeNull();
  });
});
