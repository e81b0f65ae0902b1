import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/** Every id the service mints: a type prefix plus a ULID, so ids sort by creation time. */
const idPrefixes = {
  org: "org_",
  project: "proj_",
  workload: "usp_",
  apiKey: "api_key_",
  request: "req_",
  /** A control-plane request (`x-request-id`); `req_` names gateway calls and their captures. */
  controlPlaneRequest: "cpreq_",
  deployment: "dep_",
  price: "price_",
  /** A capture writer's segment object: one per write, a batch's captures of one org and day. */
  segment: "seg_",
} as const;

export type IdKind = keyof typeof idPrefixes;

// ulid asks its random source for one byte per character; drawing each from the OS was a visible
// share of the gateway's CPU. The bytes still come from the OS, a few thousand at a time.
const pool = Buffer.alloc(4096);
let next = pool.length;
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(pooledRandom);

export function newId(kind: IdKind): string {
  return idPrefixes[kind] + ulid().toLowerCase();
}
