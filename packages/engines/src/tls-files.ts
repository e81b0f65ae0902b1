import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * Settings that name a PEM file, read and checked once at start (the parsed env holds the PEM):
 * a missing file or one that holds no certificate (or key) stops the app with one line naming
 * the setting, and a key's content is never shown.
 */
function pemFile(what: string, check: (pem: string) => void) {
  return z
    .string()
    .min(1)
    .transform((path, ctx) => {
      let pem: string;
      try {
        pem = readFileSync(path, "utf8");
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        });
        return z.NEVER;
      }
      try {
        check(pem);
      } catch {
        ctx.addIssue({ code: "custom", message: `${path} holds no valid PEM ${what}` });
        return z.NEVER;
      }
      return pem;
    });
}

const certificateBlocks = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a bundle parses; at least one is there. */
function checkCertificates(pem: string) {
  const blocks = pem.match(certificateBlocks) ?? [];
  if (blocks.length === 0) throw new Error("no certificate");
  for (const block of blocks) new X509Certificate(block);
}

/** A bundle of CA certificates that a server's certificate must chain to (instead of the system's). */
export const caFile = pemFile("CA certificate", checkCertificates);
/** This client's own certificate, for mutual TLS. */
export const certFile = pemFile("certificate", checkCertificates);
/** The key of `certFile`, unencrypted. */
export const keyFile = pemFile("private key (unencrypted)", (pem) => createPrivateKey(pem));
