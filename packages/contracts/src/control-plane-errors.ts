/** The closed list of control-plane error codes and the HTTP status each one maps to. */
export const controlPlaneErrorStatus = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  /** A create with this `Idempotency-Key` is still running; retry in a moment. */
  idempotency_in_progress: 409,
  unprocessable: 422,
  /** This `Idempotency-Key` was used for another request (path or body). */
  idempotency_key_reused: 422,
  payload_too_large: 413,
  internal_error: 500,
} as const;

export type ControlPlaneErrorCode = keyof typeof controlPlaneErrorStatus;

export interface ControlPlaneErrorBody {
  error: { code: ControlPlaneErrorCode; message: string; details?: unknown };
}
