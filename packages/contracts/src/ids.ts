import { monotonicFactory } from "ulid";

/** Every id the service mints: a type prefix plus a ULID, so ids sort by creation time. */
export const idPrefixes = {
  org: "org_",
  project: "proj_",
  workload: "usp_",
  apiKey: "api_key_",
  request: "req_",
  deployment: "dep_",
  price: "price_",
} as const;

export type IdKind = keyof typeof idPrefixes;

const ulid = monotonicFactory();

export function newId(kind: IdKind): string {
  return idPrefixes[kind] + ulid().toLowerCase();
}
