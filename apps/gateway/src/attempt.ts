import type { ArmSource, FallbackReason, GatewayMode, GatewayRoute, ProviderLabel } from "@gateway/contracts";

export interface UpstreamTarget {
  /** scheme://host[:port] */
  origin: string;
  /** Path prefix of the base URL, without trailing slash ("" for most). */
  basePath: string;
}

const targets = new Map<string, UpstreamTarget>();

/** The origin and path prefix of an upstream base URL, parsed once per URL. */
export function upstreamTarget(baseUrl: string): UpstreamTarget {
  let target = targets.get(baseUrl);
  if (!target) {
    const url = new URL(baseUrl);
    target = { origin: url.origin, basePath: url.pathname.replace(/\/+$/, "") };
    targets.set(baseUrl, target);
  }
  return target;
}

/** One upstream call the gateway may make for a request: where, with whose key, and what to report. */
export interface Attempt {
  target: UpstreamTarget;
  credential: { name: string; value: string };
  /** The body sent upstream: the caller's bytes, or a rewrite when the model (or stream options) change. */
  body: Buffer;
  mode: GatewayMode;
  route: GatewayRoute;
  providerLabel: ProviderLabel;
  /** The model reported as having run: the caller's model, or the public catalog id that served it. */
  servedModel: string | null;
  /**
   * A catalog call that cannot reach its deployment is a managed model that cannot be served
   * (503 `model_unavailable`); a passthrough that cannot reach its provider is a gateway error.
   */
  managed: boolean;
  /** Drop the usage chunk the gateway asked for on the caller's behalf (provider B streams). */
  hideUsageChunk: boolean;
}

/** A plan for one request: the attempt to make, and what to do if it fails before its first byte. */
export interface CallPlan {
  primary: Attempt;
  /** The original model with the caller's key, for a routed request; null otherwise. */
  fallback: Attempt | null;
  /** Set when the plan is itself the recovery: the route fired but its model could not be served. */
  fallbackReason?: FallbackReason;
  /** How a routed workload chose the arm; absent when no route applied. */
  armSource?: ArmSource;
}
