import { Agent } from "node:https";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { assertSafeKey, type BlobStore } from "./blob-store.ts";

export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key, e.g. `gateway/`; empty for none. */
  prefix: string;
  region: string;
  /** Unset for AWS S3; the server's URL for MinIO, R2 and other S3-compatible stores. */
  endpoint?: string;
  /** MinIO and most self-hosted servers want `bucket` in the path rather than the host name. */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (env, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** PEM of the CAs an https `endpoint`'s certificate must chain to (a private CA), instead of the system's. */
  ca?: string;
}

/**
 * Blobs as S3 objects. A PUT is atomic (readers see the whole object or none, so never a
 * partial capture), and `If-None-Match: *` makes it create-only: the store answers 412 when
 * the key exists, so a redelivered event never rewrites an object. AWS S3, MinIO and R2 all
 * honour the header on PutObject. A 409 only says that some conditional write of the key
 * conflicted, not that one succeeded, so it is checked with a HEAD before it counts as "exists".
 */
export function createS3BlobStore(
  options: S3BlobStoreOptions,
): BlobStore & { checkBucket(timeoutMs: number): Promise<void>; close(): void } {
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // An agent of our own, not the agent's options: given options, the SDK's handler sends a
    // request with `Expect: 100-continue` (a PutObject of more than a few MB: a large capture)
    // through a fresh agent of its own, without the CA, so that put failed for ever.
    ...(options.ca ? { requestHandler: { httpsAgent: new Agent({ ca: options.ca, keepAlive: true }) } } : {}),
    maxAttempts: 3,
  });
  const fullKey = (key: string) => {
    assertSafeKey(key);
    return `${options.prefix}${key}`;
  };
  const status = (error: unknown) =>
    error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;

  // Conditional PUTs tried for one key before a run of 409s is reported as an error.
  const conflictAttempts = 4;

  const exists = async (key: string) => {
    try {
      await client.send(new HeadObjectCommand({ Bucket: options.bucket, Key: key }));
      return true;
    } catch (error) {
      if (status(error) === 404) return false;
      throw error;
    }
  };

  const getObject = async (key: string, range?: string) => {
    try {
      const res = await client.send(
        new GetObjectCommand({
          Bucket: options.bucket,
          Key: fullKey(key),
          ...(range ? { Range: range } : {}),
        }),
      );
      if (!res.Body) return Buffer.alloc(0);
      return Buffer.from(await res.Body.transformToByteArray());
    } catch (error) {
      if (status(error) === 404) return undefined;
      throw error;
    }
  };

  return {
    async putIfAbsent(key, body) {
      const full = fullKey(key);
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(
            new PutObjectCommand({
              Bucket: options.bucket,
              Key: full,
              Body: body,
              IfNoneMatch: "*",
              ContentType: "application/jsonl",
            }),
          );
          return true;
        } catch (error) {
          const code = status(error);
          // 412: the object exists
          if (code === 412) return false;
          if (code !== 409) throw error;
          // 409 (ConditionalRequestConflict): another write of the key was in flight, and it may
          // yet fail or be aborted. Answering "exists" without checking could lose the capture.
          if (await exists(full)) return false;
          if (attempt >= conflictAttempts) throw error;
          // the competing write has not landed: back off a little and try to create it again
          await new Promise((r) => setTimeout(r, 50 * attempt));
        }
      }
    },
    get: (key) => getObject(key),
    async getRange(key, offset, length) {
      // S3 answers a range it cannot read (an empty one) with the whole object: never ask for one
      if (length < 1) throw new RangeError(`empty range of ${key}`);
      // a ranged GET: `bytes=first-last`, both inclusive
      return getObject(key, `bytes=${offset}-${offset + length - 1}`);
    },
    async delete(keys) {
      // DeleteObjects takes up to 1,000 keys a request; a key with no object counts as deleted.
      for (let i = 0; i < keys.length; i += 1_000) {
        const objects = keys.slice(i, i + 1_000).map((key) => ({ Key: fullKey(key) }));
        const res = await client.send(
          new DeleteObjectsCommand({ Bucket: options.bucket, Delete: { Objects: objects, Quiet: true } }),
        );
        const failed = res.Errors ?? [];
        if (failed.length > 0) {
          throw new Error(
            `S3 kept ${failed.length} objects: ${failed[0]!.Key} ${failed[0]!.Code} ${failed[0]!.Message}`,
          );
        }
      }
    },
    /**
     * Asks for the bucket once (HeadBucket), at start: rejects with the SDK's error (a 403 for
     * keys it refuses, a 404 for no such bucket, the TLS error for a certificate not trusted).
     */
    async checkBucket(timeoutMs) {
      await client.send(new HeadBucketCommand({ Bucket: options.bucket }), {
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
    },
    close: () => client.destroy(),
  };
}
