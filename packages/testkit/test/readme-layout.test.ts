import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The README's layout section is where a newcomer learns what each app and package is for; this
// keeps it from drifting as folders come and go. It checks the names only: what a line says about
// its folder is for review to keep true.

const root = fileURLToPath(new URL("../../../", import.meta.url));
const workspaceRoots = ["apps", "packages"];

/**
 * The folders the layout section names under apps/ and packages/, as `apps/gateway`. The section is
 * the README's first code block after `## Layout`: a root folder at the line's start (`apps/`), its
 * folders indented by two spaces, one or more per line (`bus/ cache/ blobstore/ jobs/   ports…`);
 * deeper-indented lines continue the text of the line above.
 */
function namedInLayout(readme: string): string[] {
  const section = /^## Layout\n[\s\S]*?^```\n([\s\S]*?)^```/m.exec(readme)?.[1];
  if (!section) throw new Error("README.md has no code block under `## Layout`");
  const named: string[] = [];
  let current = "";
  for (const line of section.split("\n")) {
    const top = /^([a-z0-9-]+)\//.exec(line);
    if (top) current = top[1]!;
    const entry = /^ {2}(\S.*)$/.exec(line)?.[1];
    if (!entry || !workspaceRoots.includes(current)) continue;
    for (const word of entry.split(/\s+/)) {
      const folder = /^([a-z0-9-]+)\/$/.exec(word)?.[1];
      if (!folder) break;
      named.push(`${current}/${folder}`);
    }
  }
  return named.sort();
}

/** The workspace packages on disk: a folder holding a package.json (not one a branch switch left
 * behind holding only node_modules). */
function foldersOnDisk(): string[] {
  return workspaceRoots
    .flatMap((parent) =>
      readdirSync(`${root}${parent}`, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(`${root}${parent}/${entry.name}/package.json`))
        .map((entry) => `${parent}/${entry.name}`),
    )
    .sort();
}

describe("the README's layout section", () => {
  const named = namedInLayout(readFileSync(`${root}README.md`, "utf8"));
  const onDisk = foldersOnDisk();

  it("names every folder under apps/ and packages/", () => {
    expect(onDisk.filter((folder) => !named.includes(folder))).toEqual([]);
  });

  it("names only folders that exist", () => {
    expect(named.filter((folder) => !onDisk.includes(folder))).toEqual([]);
  });
});
