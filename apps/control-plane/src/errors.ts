import {
  type ControlPlaneErrorBody,
  type ControlPlaneErrorCode,
  controlPlaneErrorStatus,
} from "@gateway/contracts";
import { isUniqueViolation } from "@gateway/db";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";

/** The one control-plane error: a code from the closed list, a message a person can act on. */
export class ApiError extends Error {
  readonly code: ControlPlaneErrorCode;
  readonly details: unknown;

  constructor(code: ControlPlaneErrorCode, message: string, details?: unknown) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/**
 * The error an unexpected throw answers as, or null for a 500. A unique violation is a conflict
 * wherever it comes from: the services check first and answer their own 409, and a concurrent
 * request that wins the same name, slug or instant between that check and the write ends here.
 */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (isUniqueViolation(error)) {
    return new ApiError(
      "conflict",
      "A concurrent request took the same name, slug or value first; read the current state and try again.",
    );
  }
  return null;
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found.`);

/** What to log of an unexpected error: a database error's cause, as drizzle's message lists the query's parameters. */
export const loggableError = (error: unknown): unknown =>
  error instanceof Error && error.cause instanceof Error ? error.cause : error;

export function errorResponse(c: Context, error: ApiError) {
  const body: ControlPlaneErrorBody = { error: { code: error.code, message: error.message } };
  if (error.details !== undefined) body.error.details = error.details;
  return c.json(body, controlPlaneErrorStatus[error.code] as ContentfulStatusCode);
}

/** A zod failure as a 400 that names each offending field. */
export function validationError(error: z.ZodError): ApiError {
  const issues = error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    message: issue.message,
  }));
  const summary = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  return new ApiError("bad_request", `Invalid request: ${summary}`, { issues });
}
