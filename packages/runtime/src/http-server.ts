import { readFileSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "@gateway/contracts";

/**
 * The HTTP server every app listens with: the same timeouts, and a cap on client connections
 * below the process's file-descriptor limit, so that a flood of idle or slow connections can
 * neither exhaust the descriptors the process needs for its real work (upstream sockets, capture
 * files, the database) nor keep real callers out.
 */
export interface HttpServerOptions {
  log: Logger;
  /** Client connections held at most; default `connectionBudget()`. */
  maxConnections?: number;
}

/** Longer than the 60 s idle timeout of the common load balancers, so they close first. */
const keepAliveTimeoutMs = 65_000;
/** A client that has not sent its request headers by then is cut off (Node's default is 60 s). */
const headersTimeoutMs = 10_000;
/** The whole request, body included (32 MiB at ~0.5 MB/s); the answer is not bounded by it. */
const requestTimeoutMs = 60_000;
/** Descriptors kept out of the budget for the process itself: stores, journal, logs, engines. */
const reservedDescriptors = 512;
/**
 * How far the hard cap sits above the budget: the kernel hands over up to a listen backlog (511)
 * of connections in one go, all accepted before any of those being shed has closed, and Node
 * would refuse a real caller among them outright.
 */
const burstConnections = 512;

/** The soft limit on open files (`ulimit -n`), read from /proc on Linux; undefined elsewhere. */
function openFileLimit(): number | undefined {
  try {
    const limits = readFileSync("/proc/self/limits", "utf8");
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits)?.[1];
    return soft === undefined || soft === "unlimited" ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Client connections that fit the descriptor limit: half of what the reserve leaves, because a
 * call in flight holds a second descriptor upstream (a burst above it is shed within a tick).
 * 10,000 where the limit cannot be read.
 */
function connectionBudget(limit = openFileLimit()): number {
  if (limit === undefined) return 10_000;
  return Math.max(64, Math.floor((limit - reservedDescriptors) / 2));
}

export function createHttpServer(listener: RequestListener, options: HttpServerOptions): Server {
  const server = createServer(
    {
      keepAliveTimeout: keepAliveTimeoutMs,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // how often the two timeouts above are enforced (Node's default, 30 s, lets them overrun)
      connectionsCheckingInterval: 2_000,
    },
    listener,
  );
  const cap = options.maxConnections ?? connectionBudget();
  server.maxConnections = cap + burstConnections;
  shedIdleConnections(server, cap, options.log);
  return server;
}

/**
 * Keeps room for real callers under the cap: when the connections reach 90% of it, the oldest
 * ones without a request in progress are closed until 80% remain, those that never sent a byte
 * first (a flood), then those idle between keep-alive requests or still sending headers. A
 * request under way is never cut; Node's `maxConnections` refuses outright what still exceeds
 * the cap.
 */
function shedIdleConnections(server: Server, cap: number, log: Logger) {
  // insertion order is age order: the oldest connection first
  const connections = new Map<Socket, { busy: boolean }>();
  const high = Math.floor(cap * 0.9);
  const low = Math.floor(cap * 0.8);
  let shed = 0;
  let lastReport = 0;
  const report = (message: string) => {
    const now = Date.now();
    if (now - lastReport < 10_000) return;
    lastReport = now;
    log.warn(message, { cap, closed_so_far: shed });
  };
  const closeOldest = (which: (socket: Socket) => boolean) => {
    for (const [socket, state] of connections) {
      if (connections.size <= low) return;
      if (state.busy || !which(socket)) continue;
      connections.delete(socket);
      socket.destroy();
      shed++;
    }
  };
  server.on("connection", (socket: Socket) => {
    connections.set(socket, { busy: false });
    socket.once("close", () => connections.delete(socket));
    if (connections.size < high) return;
    // the newest connection is spared: its request is most likely still on its way
    closeOldest((old) => old !== socket && old.bytesRead === 0);
    closeOldest((old) => old !== socket);
    report("connections near the cap: closed the oldest ones without a request");
  });
  server.on("request", (req, res) => {
    const state = connections.get(req.socket);
    if (state) state.busy = true;
    res.once("close", () => {
      if (state) state.busy = false;
      // answered before its body was read (a refusal): close rather than read, and throw away,
      // the rest of an upload nobody wants
      if (!req.complete) lingeringClose(req.socket);
      // stopped listening (a drain): a connection is not kept alive past its answer, else the
      // drain would wait on the client to close it
      else if (!server.listening) req.socket.end();
    });
  });
  server.on("drop", () =>
    report("connection refused: the cap is reached and every connection has a request"),
  );
}

/**
 * Closes a connection whose client is still sending: a FIN once the answer is out, then what still
 * arrives is read and dropped for a second before the socket goes. Closing with unread bytes in
 * the receive buffer makes the kernel send a reset, and a reset can erase the answer (a 401, a
 * 413) before the client has read it.
 */
function lingeringClose(socket: Socket) {
  socket.end();
  socket.resume();
  setTimeout(() => socket.destroy(), 1_000).unref();
}
