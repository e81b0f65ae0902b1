const maxTags = 20;
const maxLength = 64;

export type TagsResult = { ok: true; tags: Record<string, string> } | { ok: false; message: string };

/** `x-gateway-tags: team=search,env=prod`: at most 20 pairs, keys and values up to 64 characters. */
export function parseTags(header: string | undefined): TagsResult {
  const tags: Record<string, string> = {};
  if (!header) return { ok: true, tags };
  const pairs = header
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (pairs.length > maxTags)
    return { ok: false, message: `x-gateway-tags holds more than ${maxTags} tags.` };
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = eq === -1 ? "" : pair.slice(0, eq).trim();
    const value = eq === -1 ? "" : pair.slice(eq + 1).trim();
    if (key === "" || key.length > maxLength || value.length > maxLength) {
      return {
        ok: false,
        message: `x-gateway-tags must be comma-separated key=value pairs of at most ${maxLength} characters each; got '${pair}'.`,
      };
    }
    tags[key] = value;
  }
  return { ok: true, tags };
}
