import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { localEngines } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { createS3BlobStore } from "../src/s3-blob-store.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

describe.skipIf(!engines)("S3 blob store on the local S3 server (GATEWAY_TEST_ENGINES=1)", () => {
  const store = () =>
    createS3BlobStore({
      bucket: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
      prefix: `test-${randomBytes(4).toString("hex")}/`,
      region: process.env.GATEWAY_S3_REGION ?? "us-east-1",
      endpoint: localEngines().s3Url,
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
    // a ranged GET: exactly those bytes, from the middle of the object and at its end
    expect(
      (await blobs.getRange("captures/a/b.jsonl", 1_000_000, 4096))!.equals(
        big.subarray(1_000_000, 1_004_096),
      ),
    ).toBe(true);
    expect((await blobs.getRange("captures/a/b.jsonl", big.length - 10, 10))!.equals(big.subarray(-10))).toBe(
      true,
    );
    expect(await blobs.getRange("captures/a/missing.jsonl", 0, 10)).toBeUndefined();
    // concurrent creates of one key: exactly one wins
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => blobs.putIfAbsent("captures/a/race.jsonl", Buffer.from(`v${i}`))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    blobs.close();
  }, 60_000);

  it("deletes objects in requests of up to 1,000 keys; a missing key is no error", async () => {
    const blobs = store();
    const keys = Array.from({ length: 1_001 }, (_, i) => `captures/d/${i}.jsonl`);
    await Promise.all(keys.map((k) => blobs.putIfAbsent(k, Buffer.from(k))));
    await blobs.putIfAbsent("captures/d/kept.jsonl", Buffer.from("kept"));
    await blobs.delete([...keys, "captures/d/missing.jsonl"]);
    for (const k of [keys[0]!, keys[999]!, keys[1000]!]) expect(await blobs.get(k)).toBeUndefined();
    expect((await blobs.get("captures/d/kept.jsonl"))!.toString()).toBe("kept");
    blobs.close();
  }, 60_000);
});

// A stand-in S3 that answers from a script, to produce a 409 on demand: the real server only
// gives one when two writes of a key overlap, which a test cannot arrange reliably.
async function scriptedS3(script: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push(req.method ?? "");
      script(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const blobs = createS3BlobStore({
    bucket: "b",
    prefix: "",
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: "k", secretAccessKey: "s" },
  });
  return {
    blobs,
    seen,
    close: () => {
      blobs.close();
      return new Promise((r) => server.close(r));
    },
  };
}

const conflict = (res: ServerResponse) => {
  res.writeHead(409, { "content-type": "application/xml" });
  res.end(
    '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ConditionalRequestConflict</Code>' +
      "<Message>A conflicting conditional operation is in progress.</Message></Error>",
  );
};

describe("S3 blob store on a 409 conflict", () => {
  it("creates the object when the conflicting write never landed", async () => {
    let puts = 0;
    const s3 = await scriptedS3((req, res) => {
      if (req.method === "PUT") {
        puts++;
        if (puts === 1) return conflict(res);
        res.writeHead(200, { etag: '"e"' });
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
    try {
      expect(await s3.blobs.putIfAbsent("captures/x.jsonl", Buffer.from("v"))).toBe(true);
      expect(s3.seen).toEqual(["PUT", "HEAD", "PUT"]);
    } finally {
      await s3.close();
    }
  });

  it("answers exists when the object is there after the conflict", async () => {
    const s3 = await scriptedS3((req, res) => {
      if (req.method === "PUT") return conflict(res);
      res.writeHead(200, { "content-length": "1", etag: '"e"' });
      res.end();
    });
    try {
      expect(await s3.blobs.putIfAbsent("captures/x.jsonl", Buffer.from("v"))).toBe(false);
      expect(s3.seen).toEqual(["PUT", "HEAD"]);
    } finally {
      await s3.close();
    }
  });

  it("reports an error, not exists, when the conflict never clears and the object never appears", async () => {
    const s3 = await scriptedS3((req, res) => {
      if (req.method === "PUT") return conflict(res);
      res.writeHead(404);
      res.end();
    });
    try {
      await expect(s3.blobs.putIfAbsent("captures/x.jsonl", Buffer.from("v"))).rejects.toThrow();
      expect(s3.seen.filter((m) => m === "PUT")).toHaveLength(4);
    } finally {
      await s3.close();
    }
  });
});
