import { createS3BlobStore } from "@gateway/blobstore/s3";
import type { Logger } from "@gateway/contracts";
import { EngineRefusedError, refusalOf } from "./engine-access.ts";
import type { S3Env } from "./env.ts";

/** How long the bucket check at start waits: past it the store counts as away, not as refusing. */
const checkTimeoutMs = 5_000;

/**
 * The object store, once asked whether it takes this app (a HeadBucket): a certificate not
 * trusted, keys refused or no such bucket throws `EngineRefusedError`; a store that is away is
 * left to the app's riding out, as before.
 */
export async function openS3BlobStore(env: S3Env, log: Logger) {
  const store = createS3BlobStore({
    bucket: env.GATEWAY_S3_BUCKET,
    prefix: env.GATEWAY_S3_PREFIX,
    region: env.GATEWAY_S3_REGION,
    forcePathStyle: env.GATEWAY_S3_FORCE_PATH_STYLE,
    ...(env.GATEWAY_S3_ENDPOINT ? { endpoint: env.GATEWAY_S3_ENDPOINT } : {}),
    ...(env.GATEWAY_S3_CA_FILE ? { ca: env.GATEWAY_S3_CA_FILE } : {}),
    ...(env.GATEWAY_S3_ACCESS_KEY && env.GATEWAY_S3_SECRET_KEY
      ? {
          credentials: { accessKeyId: env.GATEWAY_S3_ACCESS_KEY, secretAccessKey: env.GATEWAY_S3_SECRET_KEY },
        }
      : {}),
  });
  const line = await store.checkBucket(checkTimeoutMs).then(
    () => null,
    (error: unknown) => refusalLine(env, error),
  );
  if (line === null) return store;
  if (line === undefined) {
    log.warn("object storage unreachable at start", { bucket: env.GATEWAY_S3_BUCKET });
    return store;
  }
  store.close();
  throw new EngineRefusedError(line);
}

/** The one line for a refusal, or undefined when the store may only be away. */
function refusalLine(env: S3Env, error: unknown): string | undefined {
  // the SDK's service errors carry the HTTP status; a HEAD's answer has no body to say more
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status === 403)
    return "GATEWAY_S3_SECRET_KEY: the object store refused the credentials (403 on the bucket; or GATEWAY_S3_ACCESS_KEY, or the key's policy)";
  if (status === 404) return `GATEWAY_S3_BUCKET: the object store has no bucket ${env.GATEWAY_S3_BUCKET}`;
  const refusal = refusalOf(error);
  if (!refusal) return undefined;
  return refusal.kind === "untrusted"
    ? `GATEWAY_S3_CA_FILE: the object store's certificate is not trusted (${refusal.why})`
    : `GATEWAY_S3_ENDPOINT: the object store refused the TLS handshake (${refusal.why})`;
}
