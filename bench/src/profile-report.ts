/** The gateway's CPU profile, summarised as markdown tables (`BENCH_PROFILE`). */
import { fixed, table } from "./markdown.ts";
import type { ProfileSummary, Share } from "./profile-summary.ts";

function shareRows(shares: Share[]): (string | number)[][] {
  return shares.map((s) => [s.name, fixed(s.ms, 0), fixed(s.pct, 1)]);
}

/** One section per profiled window set (a scenario; a consumer in `pnpm bench:consumers`). */
export function renderProfile(title: string, path: string, summaries: Map<string, ProfileSummary>): string {
  const parts = [`## ${title}`, "", `Profile: \`${path}\`.`];
  for (const [scenario, summary] of summaries) {
    parts.push(
      "",
      `### ${scenario}: ${fixed(summary.busyMs, 0)} ms busy, ${fixed(summary.idleMs, 0)} ms idle` +
        (summary.windowed ? " (measured windows and their tails)" : " (whole profile: windows not found)"),
      "",
      "Top self time by function:",
      "",
      table(
        ["function", "area", "self ms", "% busy"],
        summary.functions.map((f) => [`\`${f.name}\``, f.area, fixed(f.ms, 0), fixed(f.pct, 1)]),
      ),
      "",
      "Self time by code area (wasm is counted to the package that called into it):",
      "",
      table(["area", "self ms", "% busy"], shareRows(summary.areasSelf)),
      "",
      "Time with a frame of the area anywhere on the stack (node core and native frames, under nearly " +
        "everything, left out):",
      "",
      table(["area", "on-stack ms", "% busy"], shareRows(summary.areasOnStack)),
      "",
      "Time by owner: the nearest `apps/*` frame above the sample, else the nearest `packages/*` frame:",
      "",
      table(["owner", "ms", "% busy"], shareRows(summary.owners)),
    );
  }
  return parts.join("\n");
}
