/**
 * The baseline: the least a passthrough can do. A `node:http` server and an undici `Pool` that
 * forward method, path, headers and body to one upstream and stream status, headers and body
 * straight back. Prints `{"url":"http://127.0.0.1:P"}` once listening.
 *   UPSTREAM_URL=http://127.0.0.1:Q node --experimental-strip-types bench/src/minimal-proxy.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";

const upstreamUrl = process.env.UPSTREAM_URL;
if (!upstreamUrl) throw new Error("UPSTREAM_URL is required");
const pool = new Pool(upstreamUrl);

// Connection-level headers describe one hop; each side of the proxy manages its own.
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "host",
  "te",
  "trailer",
  "upgrade",
]);

function endToEnd(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value;
  }
  return kept;
}

const server = createServer((req, res) => {
  pool
    .stream(
      { path: req.url ?? "/", method: req.method ?? "GET", headers: endToEnd(req.headers), body: req },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, endToEnd(headers));
        return res;
      },
    )
    .catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    pool.close().then(() => process.exit(0));
  });
}
