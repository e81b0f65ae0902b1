import { describe, expect, it } from "vitest";
import { refusalOf } from "../src/engine-access.ts";

const withCode = (message: string, code: string, cause?: unknown) =>
  Object.assign(new Error(message, { cause }), { code });

describe("an engine refusing the app, told from one that is away", () => {
  it("finds the refusal in the error or what it wraps", () => {
    const tls = withCode("self-signed certificate in certificate chain", "SELF_SIGNED_CERT_IN_CHAIN");
    expect(refusalOf(new Error("retries exceeded", { cause: tls }))).toEqual({
      kind: "untrusted",
      why: "SELF_SIGNED_CERT_IN_CHAIN",
    });
    expect(refusalOf(withCode("alert", "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED"))).toEqual({
      kind: "tls",
      why: "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
    });
    const sasl = Object.assign(new Error("SASL SCRAM SHA512 authentication failed"), {
      name: "KafkaJSSASLAuthenticationError",
    });
    expect(refusalOf(sasl)?.kind).toBe("login");
    expect(refusalOf(new Error("WRONGPASS invalid username-password pair or user is disabled."))).toEqual({
      kind: "login",
      why: "WRONGPASS",
    });
    expect(refusalOf(withCode('password authentication failed for user "gw"', "28P01"))?.kind).toBe("login");
  });

  it("leaves an engine that is only away to the app's own riding out", () => {
    expect(refusalOf(withCode("connect ECONNREFUSED 127.0.0.1:9093", "ECONNREFUSED"))).toBeNull();
    expect(refusalOf(new Error("Connection is closed."))).toBeNull();
    expect(refusalOf(undefined)).toBeNull();
  });
});
