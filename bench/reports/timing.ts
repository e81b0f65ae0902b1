/** How long a query took over several warm runs. */
export interface Timing {
  median: number;
  min: number;
  max: number;
}

/** `run` once to warm, then `runs` times, each on the bench's clock. */
export async function timed(run: () => Promise<unknown>, runs = 5): Promise<Timing> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(runs / 2)]!, min: times[0]!, max: times[runs - 1]! };
}

/** A timing as a table cell: the median, and the range in brackets. */
const msCell = (t: Timing | undefined) =>
  t ? `${t.median.toFixed(1)} ms (${t.min.toFixed(1)}-${t.max.toFixed(1)})` : "";

/** Each store's timings and other figures, as one markdown table with a column per store. */
export function storeTable<R extends { timings: Map<string, Timing> }>(
  title: string,
  firstColumn: string,
  results: Map<string, R>,
  figures: [string, (r: R) => string][],
): string {
  const cells = (pick: (r: R) => string) => [...results.values()].map(pick);
  const labels = [...([...results.values()][0]?.timings.keys() ?? [])];
  const rows = [
    ...labels.map((label) => [label, ...cells((r) => msCell(r.timings.get(label)))]),
    ...figures.map(([label, pick]) => [label, ...cells(pick)]),
  ];
  const header = [firstColumn, ...results.keys()];
  return [
    `\n${title}\n`,
    `| ${header.join(" | ")} |`,
    `|${header.map(() => " --- ").join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
  ].join("\n");
}
