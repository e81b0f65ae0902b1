/**
 * The gateway's only source of configuration. The control plane writes through to it on every
 * change; the gateway only reads. Values are plain JSON.
 */
export interface ConfigCache {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Every key the cache holds, for the writer's rebuild: it deletes those no longer live, so an
   * entry whose delete was lost (or that a restored snapshot brought back) does not stay forever.
   */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

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
