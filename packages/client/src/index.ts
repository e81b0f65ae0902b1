import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.ts";

/**
 * The generated types, for a dashboard's own signatures: a project row is
 * `paths["/admin/v1/orgs/{org_id}/projects"]["get"]["responses"][200]["content"]["application/json"]["projects"][number]`.
 * @public nothing in this repository names them; they are the client's API for dashboards.
 */
export type { components, paths } from "./schema.ts";

/** Every error answer of the control plane: `{ error: { code, message, details? } }`. */
export type GatewayError = components["schemas"]["Error"];

/** A typed client of every control-plane route: `client.GET("/admin/v1/orgs/{org_id}/projects", …)`. */
export type GatewayClient = Client<paths>;

/** Where the control plane is and which credential the client sends as `Authorization: Bearer …`. */
export type GatewayClientOptions = {
  /** The control plane's origin, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** Replaces `globalThis.fetch` (a proxy agent, a test double, retries). */
  fetch?: (request: Request) => Promise<Response>;
} & (
  | {
      /** An org's `sk_` key: the admin (`/admin/v1`) and customer (`/customer/v1`) surfaces. */
      apiKey: string;
      operatorToken?: never;
    }
  | {
      /** The operator token (`GATEWAY_OPERATOR_TOKEN`): the operator surface (`/operator/v1`). */
      operatorToken: string;
      apiKey?: never;
    }
);

/**
 * A client of the control plane's HTTP API, typed from its OpenAPI document. Each call answers
 * `{ data, error, response }`: `data` on a 2xx, `error` (a `GatewayError`) otherwise; it throws
 * only when no answer came (network failure).
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const token = options.apiKey ?? options.operatorToken;
  if (!options.baseUrl) throw new Error("createGatewayClient: baseUrl is required");
  if (!token || (options.apiKey && options.operatorToken)) {
    throw new Error("createGatewayClient: pass exactly one of apiKey and operatorToken");
  }
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${token}` },
    fetch: options.fetch,
  });
}
