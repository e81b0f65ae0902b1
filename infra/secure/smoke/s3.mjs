// The HTTPS object store's smoke check (infra/secure/smoke.sh): a put and get with the CA; a
// wrong secret, plain HTTP and the wrong CA refused.
import { Agent } from "node:https";
import { dependency, env, expectOk, expectRefused, finish, pem } from "./common.mjs";

const { S3Client, PutObjectCommand, GetObjectCommand } = dependency(
  "packages/blobstore",
  "@aws-sdk/client-s3",
);
const endpoint = env("SECURE_S3_URL");
const bucket = env("GATEWAY_S3_BUCKET");
const key = `smoke/${Date.now()}.txt`;

function client({ ca = pem("ca.crt"), secret = env("GATEWAY_S3_SECRET_KEY"), url = endpoint } = {}) {
  return new S3Client({
    endpoint: url,
    region: env("GATEWAY_S3_REGION"),
    forcePathStyle: true,
    credentials: { accessKeyId: env("GATEWAY_S3_ACCESS_KEY"), secretAccessKey: secret },
    maxAttempts: 1,
    // the SDK builds its Node handler from these (the CA bundle goes on the HTTPS agent)
    requestHandler: { httpsAgent: new Agent({ ca }), connectionTimeout: 3_000 },
  });
}
const put = (c) => c.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: "smoke" }));

console.log("s3: who gets in");
await expectOk("HTTPS with the CA: put and get", async () => {
  const c = client();
  await put(c);
  const got = await c.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return `read back "${await got.Body.transformToString()}"`;
});
await expectRefused("a wrong secret key", () => put(client({ secret: "wrong-secret-key" })));
await expectRefused("plain HTTP", () => put(client({ url: endpoint.replace("https:", "http:") })));
await expectRefused("HTTPS trusting the wrong CA", () => put(client({ ca: pem("wrong-ca.crt") })));
finish();
