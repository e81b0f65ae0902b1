import type { Limits, LimitsUpdate } from "@gateway/contracts";
import {
  type Db,
  findLiveApiKey,
  findWorkload,
  inTransaction,
  type LimitsTarget,
  readLimits,
  writeLimits,
} from "@gateway/db";
import { notFound } from "../errors.ts";
import type { Services } from "./context.ts";
import { liveProject } from "./projects.ts";
import { scopeLimitsObject } from "./serialize.ts";

/** A key, project or workload of the org that limits are set on. */
interface LimitsHolder {
  target: LimitsTarget;
  /** Republishes the scope's config entries with these limits. */
  publish(limits: Limits): Promise<void>;
}

/**
 * Finds the scope in `db`, or answers 404 when it is not a live one of the org. With `lock`, its
 * row stays locked to the end of the transaction: every change to the scope takes that lock and
 * publishes under it, so the gateway's cache receives the scope's changes in commit order.
 */
export type FindLimitsHolder = (db: Db, lock: boolean) => Promise<LimitsHolder>;

/** A live key of the org (a revoked one is not found). */
export function apiKeyHolder(services: Services, orgId: string, keyId: string): FindLimitsHolder {
  return async (db, lock) => {
    const row = await findLiveApiKey(db, orgId, keyId, { lock });
    if (!row) throw notFound("API key");
    return {
      target: { scope: "api_key", scopeId: row.id, orgId },
      publish: (limits) => services.sync.apiKey(row, limits),
    };
  };
}

/** A live project of the org by its `proj_` id. */
export function projectHolder(services: Services, orgId: string, projectId: string): FindLimitsHolder {
  return async (db, lock) => {
    const row = await liveProject(db, orgId, projectId, { lock });
    return {
      target: { scope: "project", scopeId: row.id, orgId },
      publish: (limits) => services.sync.project(row, limits),
    };
  };
}

/** A workload of a live project of the org. */
export function workloadHolder(
  services: Services,
  orgId: string,
  projectId: string,
  workloadId: string,
): FindLimitsHolder {
  return async (db, lock) => {
    const project = await liveProject(db, orgId, projectId);
    const row = await findWorkload(db, project.id, workloadId, { lock });
    if (!row) throw notFound("Workload");
    return {
      target: { scope: "workload", scopeId: row.id, orgId },
      publish: (limits) => services.sync.workload(row, limits),
    };
  };
}

export async function getLimits(db: Db, find: FindLimitsHolder) {
  const { target } = await find(db, false);
  return scopeLimitsObject(target, await readLimits(db, target.scope, target.scopeId));
}

/** Applies a PUT body to the scope's limits and republishes its entries with the result. */
export async function putLimits(services: Services, find: FindLimitsHolder, update: LimitsUpdate) {
  return inTransaction(services.db, async (tx) => {
    const holder = await find(tx, true);
    const written = await writeLimits(tx, holder.target, update);
    await holder.publish(written.limits);
    return scopeLimitsObject(holder.target, written);
  });
}
