import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Hono } from "hono";
import type { ConsoleEnv } from "./context.ts";

const require = createRequire(import.meta.url);
const uplotDir = require.resolve("uplot/dist/uPlot.iife.min.js").replace(/uPlot\.iife\.min\.js$/, "");
const own = (name: string) => new URL(`./assets/${name}`, import.meta.url);

/** The console's only scripts and styles, read once and served from this origin. */
const assets: Record<string, { type: string; body: Buffer }> = {
  "console.js": { type: "text/javascript", body: readFileSync(own("console.js")) },
  "console.css": { type: "text/css", body: readFileSync(own("console.css")) },
  "uplot.js": { type: "text/javascript", body: readFileSync(`${uplotDir}uPlot.iife.min.js`) },
  "uplot.css": { type: "text/css", body: readFileSync(`${uplotDir}uPlot.min.css`) },
};

export function registerAssets(app: Hono<ConsoleEnv>) {
  app.get("/assets/:name", (c) => {
    const asset = assets[c.req.param("name")];
    if (!asset) return c.notFound();
    return c.body(new Uint8Array(asset.body), 200, {
      "content-type": `${asset.type}; charset=utf-8`,
      "cache-control": "public, max-age=300",
    });
  });
}
