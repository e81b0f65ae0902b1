/**
 * The gateway's only source of configuration. The control plane writes through to it on every
 * change; the gateway only reads. Values are plain JSON.
 */
export interface ConfigCache {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
