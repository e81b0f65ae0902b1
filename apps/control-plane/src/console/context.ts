import type { Context } from "hono";
import type { AppEnv } from "../services/context.ts";
import type { ConsoleApi } from "./api.ts";
import type { ConsoleSession } from "./session.ts";

/** A console request past sign-in: its session, its API client and its form token. */
export type ConsoleEnv = AppEnv & {
  Variables: AppEnv["Variables"] & { session: ConsoleSession; api: ConsoleApi; csrf: string };
};

export type ConsoleContext = Context<ConsoleEnv>;

/** The signed-in org (pages of an org); the operator gets a 404 from the API on them. */
export function orgOf(c: ConsoleContext): string {
  const { principal } = c.get("session");
  return principal.kind === "org" ? principal.orgId : "-";
}

/** A form's text field, trimmed; "" when absent. */
export async function formField(c: ConsoleContext, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value.trim() : "";
}
