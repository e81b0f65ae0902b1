/**
 * The gateway's only source of configuration. The control plane writes through to it on every
 * change; the gateway only reads. Values are plain JSON.
 */
export interface ConfigCache {
  get<T>(key: string, options?: ReadOptions): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Every key the cache holds, for the writer's rebuild: it deletes those no longer live, so an
   * entry whose delete was lost (or that a restored snapshot brought back) does not stay forever.
   */
  keys(): Promise<string[]>;
  /**
   * Whether a reader can answer for keys it has never seen: true once the cache has been complete
   * at least once (a Redis rebuilt by the control plane, with the invalidations subscribed). It
   * stays true when the store goes away later: the copies keep answering, and a gateway taken out
   * of rotation for it would turn a Redis outage into a total one.
   */
  synced(): boolean;
  /** How the reads so far were answered, for metrics. */
  lookups(): CacheLookups;
  close(): Promise<void>;
}

export interface ReadOptions {
  /**
   * Answer from the shared store or from a copy fresh enough to trust, never from a copy kept
   * while the store is away (ConfigUnavailableError instead, without waiting past the short
   * timeout): for a reader that has the source of truth to ask instead (the control plane).
   */
  freshOnly?: boolean;
}

/** Reads by how they were answered. */
export interface CacheLookups {
  /** From this process's copy, fresh enough to trust (in process: every read). */
  local: number;
  /** From the shared store (Redis). */
  store: number;
  /** From this process's copy because the store did not answer or is not rebuilt. */
  stale: number;
  /** Neither: the read failed (`ConfigUnavailableError`). */
  unavailable: number;
}

export const noLookups = (): CacheLookups => ({ local: 0, store: 0, stale: 0, unavailable: 0 });

/**
 * A read the cache could not answer: no copy of the key here, and the shared store did not
 * answer in time (or restarted empty). Not "unknown": the caller must not be told its key is
 * invalid when it may not be.
 */
export class ConfigUnavailableError extends Error {
  constructor(key: string, cause: string) {
    super(`config store did not answer for ${key.split(":")[0]}: ${cause}`);
    this.name = "ConfigUnavailableError";
  }
}
