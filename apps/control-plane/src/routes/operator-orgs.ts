import type { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../services/context.ts";
import { createOrg } from "../services/orgs.ts";
import { jsonBody } from "../validate.ts";

export const createOrgRequest = z.strictObject({ name: z.string().trim().min(1).max(200) });

/** POST /operator/v1/orgs: the org, its default project, and its starter key (shown once). */
export function registerOperatorOrgs(app: Hono<AppEnv>) {
  app.post("/orgs", async (c) => {
    const { name } = await jsonBody(c, createOrgRequest);
    return c.json(await createOrg(c.get("services"), name), 201);
  });
}
