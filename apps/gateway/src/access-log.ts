import type { Logger } from "@gateway/contracts";
import type { CallObserver } from "./call-observer.ts";
import { armOf, type CallState, elapsedMs } from "./call-state.ts";

/** One `access` log line per call as it ends (GATEWAY_ACCESS_LOG). */
export function accessLog(log: Logger): CallObserver {
  return {
    ended(call) {
      log.info("access", accessFields(call));
    },
  };
}

/**
 * The access log line of a call: who, where, how it went; never a key, a body or a prompt (the
 * model names are the caller's and not logged either: they can be anything).
 */
function accessFields(call: CallState) {
  const arm = armOf(call);
  return {
    request_id: call.requestId,
    org_id: call.caller?.apiKey.orgId ?? null,
    project_id: call.caller?.project.id ?? null,
    workload_id: call.caller?.workload.id ?? null,
    endpoint: call.spec.endpoint,
    mode: arm.mode,
    route: arm.route,
    status: call.status,
    first_byte_ms: call.firstByteMs,
    total_ms: Math.round(elapsedMs(call) * 10) / 10,
    stream_outcome: call.outcome,
  };
}
