/** Capture objects. Writes are create-only, so a redelivered event never rewrites or tears an object. */
export interface BlobStore {
  /** Stores `body` at `key` unless the key exists; resolves false when it already did. */
  putIfAbsent(key: string, body: Buffer): Promise<boolean>;
  get(key: string): Promise<Buffer | undefined>;
  /** Deletes the objects at `keys`; a key with no object is no error (retention may run twice). */
  delete(keys: string[]): Promise<void>;
  /**
   * `length` bytes of the object from byte `offset` (fewer when the object ends first): one
   * capture of a segment, without reading the rest of it. Undefined when there is no object; `length` is at least 1.
   */
  getRange(key: string, offset: number, length: number): Promise<Buffer | undefined>;
}

/** Keys are relative, slash-separated paths of safe segments. */
export function assertSafeKey(key: string): void {
  const segments = key.split("/");
  if (segments.some((s) => s === "" || s === "." || s === ".." || !/^[A-Za-z0-9._-]+$/.test(s))) {
    throw new Error(`unsafe blob key: ${key}`);
  }
}
