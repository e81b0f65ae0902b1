import { html } from "hono/html";
import type { Html } from "./layout.ts";

/** A 0..1 share as a percentage with one decimal: what people compare with a dial in percent. */
export const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** A window choice as links; the current one marked, the rest of the query kept. */
export function windowChoice(baseUrl: string, current: string, choices: readonly string[]): Html {
  return html`<nav aria-label="Window" class="windows">Window (UTC):
    ${choices.map((w) =>
      w === current
        ? html`<strong aria-current="page">${w}</strong> `
        : html`<a href="${baseUrl}?window=${w}">${w}</a> `,
    )}</nav>`;
}

/** The query's window when it is one of the choices, else the default. */
export function chosenWindow(
  asked: string | undefined,
  choices: readonly string[],
  fallback: string,
): string {
  return asked && choices.includes(asked) ? asked : fallback;
}
