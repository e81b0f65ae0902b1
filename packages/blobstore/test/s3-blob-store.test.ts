import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createS3BlobStore } from "../src/index.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

describe.skipIf(!engines)("S3 blob store on the local S3 server (GATEWAY_TEST_ENGINES=1)", () => {
  const store = () =>
    createS3BlobStore({
      bucket: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
      prefix: `test-${randomBytes(4).toString("hex")}/`,
      region: process.env.GATEWAY_S3_REGION ?? "us-east-1",
      endpoint: process.env.GATEWAY_TEST_S3_URL ?? "http://127.0.0.1:59000",
      forcePathStyle: true,
      credentials: {
        accessKeyId: process.env.GATEWAY_S3_ACCESS_KEY ?? "gateway-dev",
        secretAccessKey: process.env.GATEWAY_S3_SECRET_KEY ?? "gateway-dev-secret-key",
      },
    });

  it("writes create-only and reads back the same bytes, 32 MiB included", async () => {
    const blobs = store();
    const big = randomBytes(32 * 1024 * 1024);
    expect(await blobs.putIfAbsent("captures/a/b.jsonl", big)).toBe(true);
    expect(await blobs.putIfAbsent("captures/a/b.jsonl", Buffer.from("other"))).toBe(false);
    expect((await blobs.get("captures/a/b.jsonl"))!.equals(big)).toBe(true);
    expect(await blobs.get("captures/a/missing.jsonl")).toBeUndefined();
    // concurrent creates of one key: exactly one wins
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => blobs.putIfAbsent("captures/a/race.jsonl", Buffer.from(`v${i}`))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    blobs.close();
  }, 60_000);
});
