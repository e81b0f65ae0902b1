import { createHmac } from "node:crypto";
import { ApiError } from "../errors.ts";
import { sameSecret } from "../same-secret.ts";

/**
 * Opaque, tamper-evident cursors: the position and the scope it belongs to, signed. A forged
 * cursor, or one minted for another scope, is refused instead of leaking another scope's rows.
 */
export function cursorCodec(secret: Buffer) {
  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest("base64url");
  return {
    encode(scope: string, position: unknown[]): string {
      const payload = Buffer.from(JSON.stringify({ s: scope, p: position })).toString("base64url");
      return `${payload}.${sign(payload)}`;
    },
    decode(scope: string, cursor: string): unknown[] {
      const [payload, signature, extra] = cursor.split(".");
      const valid =
        payload !== undefined &&
        payload !== "" &&
        signature !== undefined &&
        extra === undefined &&
        sameSecret(signature, sign(payload));
      if (!valid) throw new ApiError("bad_request", "Invalid cursor.");
      const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
        s: unknown;
        p: unknown;
      };
      if (decoded.s !== scope || !Array.isArray(decoded.p))
        throw new ApiError("bad_request", "Invalid cursor.");
      return decoded.p;
    },
  };
}
export type CursorCodec = ReturnType<typeof cursorCodec>;
