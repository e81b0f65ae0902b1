import type { IncomingHttpHeaders } from "node:http";
import type { CatalogModelEntry, ConfigReader, DeploymentEntry, WorkloadEntry } from "@gateway/cache";
import { gatewayRequestHeaders, isUpstreamCredentialEnv, upstreamCredentialPrefix } from "@gateway/contracts";
import {
  type EndpointSpec,
  type GatewayErrorKind,
  upstreamCredentialHeader,
  type WireFormat,
} from "@gateway/providers";
import { type Attempt, type CallPlan, upstreamTarget } from "./attempt.ts";
import { conversationOf, sharePoint } from "./conversation.ts";
import type { RequestJson } from "./request-json.ts";

export interface PlanContext {
  config: ConfigReader;
  /** Reads an operator credential by the env var name the catalog gives. */
  credentials(name: string): string | undefined;
  providerUrls: { provider_a: string; provider_b: string };
  /** Env var holding the operator's provider-B key for the responses endpoints. */
  responsesKeyEnv: string;
  random(): number;
}

export interface PlanInput {
  spec: EndpointSpec;
  request: RequestJson;
  body: Buffer;
  /** The request's headers, read only for the conversation a routed request belongs to. */
  headers: IncomingHttpHeaders;
  upstreamKey: string | undefined;
  workload: WorkloadEntry;
}

export type PlanResult =
  | { ok: true; plan: CallPlan }
  | { ok: false; kind: GatewayErrorKind; message: string; param: string | null };

const refuse = (kind: GatewayErrorKind, message: string, param: string | null = null): PlanResult => ({
  ok: false,
  kind,
  message,
  param,
});

/** A managed call to a catalog model (what `planCall` does without an upstream key): its body is rewritten. */
export const isCatalogCall = (spec: EndpointSpec, upstreamKey: string | undefined) =>
  !upstreamKey && spec.wireFormat !== "responses";

/**
 * Decides where a request goes. Bring-your-own-key traffic passes through to its provider unless
 * its workload routes a share of it to a catalog model; a request without an upstream key is a
 * managed call to a catalog model, all or nothing; the responses endpoints use the operator's
 * provider-B key and forward the caller's model unchanged.
 */
export async function planCall(ctx: PlanContext, input: PlanInput): Promise<PlanResult> {
  const { spec, request, upstreamKey } = input;
  const model = request.model;
  if (spec.wireFormat === "responses") return planResponses(ctx, input, model);
  // (`isCatalogCall`, told apart here in the same order)
  if (!upstreamKey) return planManaged(ctx, input, model);

  const byo: Attempt = {
    target: upstreamTarget(ctx.providerUrls[spec.provider]),
    credential: upstreamCredentialHeader(spec.wireFormat, upstreamKey),
    body: input.body,
    mode: "byo",
    route: "primary",
    providerLabel: spec.provider,
    servedModel: model,
    managed: false,
    hideUsageChunk: false,
  };
  const { id: workloadId, routeModelId, routeTrafficPct } = input.workload;
  // count_tokens is not a generation: it always goes to the model it names.
  const routable = routeModelId !== null && spec.endpoint !== "count_tokens" && routeTrafficPct > 0;
  if (!routable) return { ok: true, plan: { primary: byo, fallback: null } };
  // A conversation keeps its arm from turn to turn (its prompt cache and its model's behaviour
  // with it); a request that names none is drawn on its own.
  const conversation = conversationOf(input.headers, request.asRead, spec.wireFormat);
  const armSource = conversation === null ? "draw" : "affinity";
  const point = conversation === null ? ctx.random() : sharePoint(workloadId, routeModelId, conversation);
  if (point * 100 >= routeTrafficPct) return { ok: true, plan: { primary: byo, fallback: null, armSource } };

  const fallback: Attempt = { ...byo, route: "fallback" };
  const served = await servable(ctx, routeModelId, spec.wireFormat);
  if (!served.ok) {
    // The route fired but its model cannot be served: recover on the original model at once.
    return { ok: true, plan: { primary: fallback, fallback: null, fallbackReason: "error", armSource } };
  }
  const routed = catalogAttempt(served, request.whole(), spec.wireFormat, "gateway");
  return { ok: true, plan: { primary: routed, fallback, armSource } };
}

function planResponses(ctx: PlanContext, input: PlanInput, model: string | null): PlanResult {
  if (input.upstreamKey) {
    return refuse(
      "invalid_request",
      `${input.spec.upstreamPath} is served with managed credentials only; remove ${gatewayRequestHeaders.upstreamKey}.`,
    );
  }
  const key = ctx.credentials(ctx.responsesKeyEnv);
  if (!key)
    return refuse(
      "model_unavailable",
      `${input.spec.upstreamPath} is not available: no managed credentials are configured.`,
    );
  return {
    ok: true,
    plan: {
      primary: {
        target: upstreamTarget(ctx.providerUrls.provider_b),
        credential: upstreamCredentialHeader("responses", key),
        body: input.body,
        mode: "managed",
        route: "primary",
        providerLabel: "provider_b",
        servedModel: model,
        managed: true,
        hideUsageChunk: false,
      },
      fallback: null,
    },
  };
}

async function planManaged(ctx: PlanContext, input: PlanInput, model: string | null): Promise<PlanResult> {
  if (model === null) return refuse("invalid_request", "The request body needs a string `model`.", "model");
  const served = await servable(ctx, model, input.spec.wireFormat);
  if (!served.ok) return refuse(served.kind, served.message, "model");
  return {
    ok: true,
    plan: {
      primary: catalogAttempt(served, input.request.whole(), input.spec.wireFormat, "primary"),
      fallback: null,
    },
  };
}

/** A catalog model, its deployment in the endpoint's format, and the operator's key for it. */
interface ServedBy {
  model: CatalogModelEntry;
  deployment: DeploymentEntry;
  key: string;
}

type Servable = ({ ok: true } & ServedBy) | { ok: false; kind: GatewayErrorKind; message: string };

/** A catalog model that can serve this wire format now, with the credential to call it. */
async function servable(ctx: PlanContext, modelId: string, format: WireFormat): Promise<Servable> {
  const model = await ctx.config.catalogModel(modelId);
  if (!model) {
    return {
      ok: false,
      kind: "model_not_found",
      message: `Model '${modelId}' is not in the catalog. To use your own provider key, send it in ${gatewayRequestHeaders.upstreamKey}.`,
    };
  }
  const unavailable = (why: string): Servable => ({
    ok: false,
    kind: "model_unavailable",
    message: `Model '${modelId}' cannot be served right now: ${why}.`,
  });
  if (!model.active) return unavailable("it is not active");
  const deployment = model.deployments.find((d) => d.wireFormat === format);
  if (!deployment) return unavailable(`it is not offered in this endpoint's format`);
  // checked again here, where the secret is read: a cache entry written before the control
  // plane enforced the prefix must not reach any other variable of the process either
  if (!isUpstreamCredentialEnv(deployment.credentialEnv))
    return unavailable(`its deployment's credential_env does not start ${upstreamCredentialPrefix}`);
  const key = ctx.credentials(deployment.credentialEnv);
  if (!key) return unavailable("its deployment has no credentials configured");
  return { ok: true, model, deployment, key };
}

/** A call to a catalog deployment, paid by the operator, with the model rewritten to the deployment's. */
function catalogAttempt(
  { model, deployment, key }: ServedBy,
  request: Record<string, unknown>,
  format: WireFormat,
  route: "primary" | "gateway",
): Attempt {
  const rewritten: Record<string, unknown> = { ...request, model: deployment.upstreamModel };
  // Usage is what the operator pays for: a provider-B stream carries it only when asked, so ask,
  // and hide the extra chunk from a caller who did not.
  const streamOptions = request.stream_options;
  const askedForUsage =
    typeof streamOptions === "object" && streamOptions !== null && "include_usage" in streamOptions
      ? streamOptions.include_usage === true
      : false;
  const injectUsage = format === "chat_completions" && request.stream === true && !askedForUsage;
  if (injectUsage) {
    rewritten.stream_options = {
      ...(typeof streamOptions === "object" ? streamOptions : {}),
      include_usage: true,
    };
  }
  return {
    target: upstreamTarget(deployment.baseUrl),
    credential: upstreamCredentialHeader(format, key),
    body: Buffer.from(JSON.stringify(rewritten)),
    mode: "managed",
    route,
    providerLabel: deployment.providerLabel,
    servedModel: model.id,
    managed: true,
    hideUsageChunk: injectUsage,
  };
}
