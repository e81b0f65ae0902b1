/** Markdown for the bench's report: tables, and numbers as the report prints them. */

export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** `value` with `digits` decimals, or "n/a" when it is not a finite number. */
export const fixed = (value: number, digits: number) =>
  Number.isFinite(value) ? value.toFixed(digits) : "n/a";
/** A ratio as the report prints it: `1.23x`. */
export const times = (value: number) => `${fixed(value, 2)}x`;
