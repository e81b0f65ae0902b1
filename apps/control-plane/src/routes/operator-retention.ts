import { orgExists, type Retention, retentionDefaults, retentionOf, setRetention } from "@gateway/db";
import type { Context } from "hono";
import { z } from "zod";
import { ApiError, notFound } from "../errors.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import type { AppEnv } from "../services/context.ts";
import { orgPath } from "./path-params.ts";

const days = z.number().int().min(1).max(3_650);
const retentionSchema = z.strictObject({
  calls_days: days.describe("Days call rows are kept (whole UTC days)."),
  captures_days: days.describe("Days captures are kept: index rows and objects."),
  rollups_days: days.describe("Days the hourly rollups the reports sum are kept; at least `calls_days`."),
});
const retentionUpdate = z.strictObject({
  calls_days: days.nullable().optional(),
  captures_days: days.nullable().optional(),
  rollups_days: days.nullable().optional(),
});

const defaults = `Defaults: calls ${retentionDefaults.callsDays} days, captures ${retentionDefaults.capturesDays} days, rollups ${retentionDefaults.rollupsDays} days.`;

const asJson = (r: Retention): z.infer<typeof retentionSchema> => ({
  calls_days: r.callsDays,
  captures_days: r.capturesDays,
  rollups_days: r.rollupsDays,
});

async function existingOrg(c: Context<AppEnv>, orgId: string) {
  if (!(await orgExists(c.get("services").db, orgId))) throw notFound("Org");
}

/** /operator/v1/orgs/{org_id}/retention: how long an org's calls, captures and rollups are kept. */
export function registerOperatorRetention(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/orgs/{org_id}/retention",
      summary: "Get an org's retention",
      description: `What the org keeps, its defaults filled in. ${defaults}`,
      request: { params: orgPath },
      responses: { 200: json("The org's retention.", retentionSchema) },
    }),
    async (c) => {
      const { org_id } = c.req.valid("param");
      await existingOrg(c, org_id);
      return c.json(asJson(await retentionOf(c.get("services").db, org_id)), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "put",
      path: "/orgs/{org_id}/retention",
      summary: "Set an org's retention",
      description: [
        "Each field given is set (1 to 3,650 days), `null` goes back to the default, a field left out keeps its value.",
        defaults,
        "Data goes by whole UTC days: a day is removed once all of it is older than the retention, by the retention jobs",
        "of the costing worker (call rows, rollups) and the capture writer (captures), which run every hour.",
        "The rollups must be kept at least as long as the call rows, or the reports could not answer for days whose rows are gone.",
      ].join(" "),
      request: { params: orgPath, body: jsonBody(retentionUpdate) },
      responses: { 200: json("The org's retention as it now is.", retentionSchema) },
    }),
    async (c) => {
      const { org_id } = c.req.valid("param");
      const body = c.req.valid("json");
      const { db } = c.get("services");
      await existingOrg(c, org_id);
      const current = await retentionOf(db, org_id);
      const pick = (given: number | null | undefined, now: number, fallback: number) =>
        given === undefined ? now : (given ?? fallback);
      const callsDays = pick(body.calls_days, current.callsDays, retentionDefaults.callsDays);
      const rollupsDays = pick(body.rollups_days, current.rollupsDays, retentionDefaults.rollupsDays);
      if (rollupsDays < callsDays) {
        throw new ApiError(
          "bad_request",
          `rollups_days (${rollupsDays}) must be at least calls_days (${callsDays}).`,
        );
      }
      const updated = await setRetention(db, org_id, {
        callsDays: body.calls_days,
        capturesDays: body.captures_days,
        rollupsDays: body.rollups_days,
      });
      return c.json(asJson(updated), 200);
    },
  );
}
