import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import axe from "axe-core";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** Debian's chromium (scripts/install-chromium.sh); packages that download their own fail here. */
const chromiumPath = "/usr/bin/chromium";

/**
 * Whether the browser suites run: on a machine with the browser, or where CI says they must
 * (`GATEWAY_TEST_BROWSER=1`, set by .ci/run after installing it: a missing browser then fails).
 */
export const browserWanted = existsSync(chromiumPath) || process.env.GATEWAY_TEST_BROWSER === "1";

/**
 * Where the screenshots go: docs/console/, which README shows (committed), when asked with
 * `GATEWAY_TEST_SCREENSHOTS=1`; otherwise the browser's own temporary profile, so that a test run
 * takes them all the same but never changes the tree.
 */
const docsScreenshots = new URL("../../../../docs/console/", import.meta.url).pathname;

export interface ConsoleBrowser {
  page: Page;
  /** What the browser reported as errors so far (a CSP refusal, a failed script): none expected. */
  errors: string[];
  /** axe-core on the current page: no serious or critical violation. */
  accessible(): Promise<void>;
  /** The current page as <name>.png (see `docsScreenshots`). */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** One headless browser with a fresh profile and one page, reused by a whole suite. */
export async function openBrowser(): Promise<ConsoleBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "gw-chromium-"));
  // a fresh profile each run (playwright's persistent context is how it takes --user-data-dir)
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const screenshotDir = process.env.GATEWAY_TEST_SCREENSHOTS === "1" ? docsScreenshots : profile;
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  // which resource failed: the console message above does not name it
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
  });
  // evaluated through the devtools protocol, which the page's CSP does not govern (an injected
  // <script> tag would be refused, as it should be)
  return {
    page,
    errors,
    async accessible() {
      await page.evaluate(axe.source);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } })
          .axe;
        const result = await axe.run();
        return result.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
      });
      expect(violations, `axe on ${page.url()}`).toEqual([]);
    },
    async screenshot(name) {
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: string[] }[];
}
