import { createS3BlobStore } from "@gateway/blobstore/s3";
import type { S3Env } from "./env.ts";

export function openS3BlobStore(env: S3Env) {
  return createS3BlobStore({
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
}
