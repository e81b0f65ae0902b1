import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConfigReader } from "@gateway/cache";
import { newId } from "@gateway/contracts";
import { type GatewayErrorKind, gatewayError } from "@gateway/providers";
import type { GatewayContext } from "./call-context.ts";
import { gatewayHeaders } from "./call-state.ts";
import { failUnhandled, retryHeaders, sendJson, thrownError } from "./gateway-errors.ts";
import { noteKeyUse } from "./record-call.ts";
import { authenticate } from "./resolve-caller.ts";

/** The model list is the operator's catalog: managed, whatever the caller sends. */
const listArm = { mode: "managed", route: "primary", servedModel: null } as const;

/**
 * `GET /v1/models`, for any valid gateway key (no call event: its key's use is noted). A config
 * store that does not answer is a 503 to retry; any other failure is the gateway's catch-all,
 * under this request's id and the list's arm.
 */
export async function serveModels(gateway: GatewayContext, req: IncomingMessage, res: ServerResponse) {
  const requestId = newId("request");
  const refuse = (kind: GatewayErrorKind, message: string) => {
    const error = gatewayError("chat_completions", kind, message, requestId);
    sendJson(res, error.status, error.body, { ...gatewayHeaders(requestId, listArm), ...retryHeaders(kind) });
  };
  try {
    const key = await authenticate(gateway.reader, req.headers, true);
    if (!key.ok) return refuse(key.kind, key.message);
    noteKeyUse(gateway.bus, key.apiKey);
    sendJson(res, 200, await modelList(gateway.reader), gatewayHeaders(requestId, listArm));
  } catch (error) {
    const thrown = thrownError(error);
    if (thrown.kind === "internal") {
      const as = { format: "chat_completions", requestId, arm: listArm } as const;
      return failUnhandled({ res, log: gateway.log, error, as });
    }
    refuse(thrown.kind, thrown.message);
  }
}

/** The active catalog ids, in provider B's model-list shape. */
async function modelList(config: ConfigReader): Promise<string> {
  const ids = await config.catalogIndex();
  const models = await Promise.all(ids.map((id) => config.catalogModel(id)));
  const data = models
    .filter((m) => m?.active)
    .map((m) => ({
      id: m!.id,
      object: "model",
      created: m!.created,
      owned_by: "gateway",
      display_name: m!.displayName,
    }));
  return JSON.stringify({ object: "list", data });
}
