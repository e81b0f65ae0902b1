import { newId } from "@gateway/contracts";
import { insertPrice, listPrices, type PriceRow } from "@gateway/db";
import { enqueueReprice } from "@gateway/jobs";
import { z } from "zod";
import { ApiError } from "../errors.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";

/**
 * Exact decimals as strings: prices are money and must not pass through a binary float. At most 6
 * decimals (a pico-dollar per token), so that both stores compute every cost exactly and alike
 * (docs/decisions.md, "Money: integers, exact").
 */
const usdPerMtok = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,5})(\.[0-9]{1,6})?$/, 'A non-negative decimal string such as "3" or "0.30"')
  .meta({ description: "US dollars per million tokens, as a decimal string." });

const addPriceRequest = z.strictObject({
  model: z.string().trim().min(1).max(200).meta({ description: "The model name calls are priced by." }),
  effective_from: z.iso
    .datetime({ offset: true })
    // Years before 2000 are no price anyone means, and years 0000-0099 are read back by the
    // database drivers as 19xx or as invalid dates: the range is bounded where it is parsed.
    .regex(/^[2-9][0-9]{3}-/, "A year from 2000 to 9999")
    .refine((value) => Date.parse(value) >= Date.UTC(2000, 0, 1), "Not before 2000-01-01T00:00:00Z")
    .optional()
    .meta({
      description: "When the price starts to apply, from 2000-01-01T00:00:00Z to year 9999; default now.",
      // stated here: the generator drops the date-time format of a string with a second pattern
      format: "date-time",
    }),
  input_usd_per_mtok: usdPerMtok,
  cache_write_5m_usd_per_mtok: usdPerMtok,
  cache_write_1h_usd_per_mtok: usdPerMtok,
  cache_read_usd_per_mtok: usdPerMtok,
  output_usd_per_mtok: usdPerMtok,
});
const listPricesQuery = z.strictObject({ model: z.string().min(1).max(200).optional() });

export const priceSchema = z.strictObject({
  id: z.string().meta({ description: "Prefix `price_`." }),
  model: z.string(),
  effective_from: z.iso.datetime(),
  input_usd_per_mtok: z.string(),
  cache_write_5m_usd_per_mtok: z.string(),
  cache_write_1h_usd_per_mtok: z.string(),
  cache_read_usd_per_mtok: z.string(),
  output_usd_per_mtok: z.string(),
  created_at: z.iso.datetime(),
});
export const priceListResponse = z.strictObject({ prices: z.array(priceSchema) });
const addPriceResponse = priceSchema.extend({
  repricing: z.literal("queued").meta({
    description:
      "The model's calls are re-priced by a background job (`costing.reprice-model`), after this answer: reports show the new row once it has run.",
  }),
});

function priceObject(p: PriceRow): z.infer<typeof priceSchema> {
  return {
    id: p.id,
    model: p.model,
    effective_from: p.effectiveFrom.toISOString(),
    input_usd_per_mtok: p.inputUsdPerMtok,
    cache_write_5m_usd_per_mtok: p.cacheWrite5mUsdPerMtok,
    cache_write_1h_usd_per_mtok: p.cacheWrite1hUsdPerMtok,
    cache_read_usd_per_mtok: p.cacheReadUsdPerMtok,
    output_usd_per_mtok: p.outputUsdPerMtok,
    created_at: p.createdAt.toISOString(),
  };
}

/** /operator/v1/prices: append-only; a newer `effective_from` supersedes, rows are never edited. */
export function registerOperatorPrices(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/prices",
      summary: "List price rows",
      request: { query: listPricesQuery },
      responses: { 200: json("By model, then effective_from.", priceListResponse) },
    }),
    async (c) => {
      const rows = await listPrices(c.get("services").db, c.req.valid("query").model);
      return c.json({ prices: rows.map(priceObject) }, 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "post",
      path: "/prices",
      summary: "Add a price row",
      request: { body: jsonBody(addPriceRequest) },
      responses: {
        201: json("The new row; re-pricing of the model's calls is queued.", addPriceResponse),
        409: { description: "The model already has a price starting at that instant." },
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const row = await insertPrice(c.get("services").db, {
        id: newId("price"),
        model: body.model,
        effectiveFrom: body.effective_from ? new Date(body.effective_from) : new Date(),
        inputUsdPerMtok: body.input_usd_per_mtok,
        cacheWrite5mUsdPerMtok: body.cache_write_5m_usd_per_mtok,
        cacheWrite1hUsdPerMtok: body.cache_write_1h_usd_per_mtok,
        cacheReadUsdPerMtok: body.cache_read_usd_per_mtok,
        outputUsdPerMtok: body.output_usd_per_mtok,
      });
      if (!row) {
        throw new ApiError("conflict", `'${body.model}' already has a price effective from that instant.`);
      }
      // Calls the new row covers (unpriced for want of a price, or priced at an older version)
      // are re-priced by the costing worker: pricing has one owner, and re-pricing a model with
      // many calls is one long statement that must not hold an HTTP request open.
      await enqueueReprice(c.get("services").jobs, row.model);
      return c.json({ ...priceObject(row), repricing: "queued" as const }, 201);
    },
  );
}
