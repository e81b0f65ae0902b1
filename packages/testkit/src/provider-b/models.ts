/** `GET /v1/models` (§4): a fixed catalogue, since the mock accepts any model name anyway. */
export const MODELS = [
  { id: "gpt-5.6-sol", object: "model", created: 1_787_270_400, owned_by: "system" },
  { id: "gpt-5.6-terra", object: "model", created: 1_787_270_400, owned_by: "system" },
  { id: "gpt-5.6-luna", object: "model", created: 1_787_270_400, owned_by: "system" },
  { id: "gpt-5.5", object: "model", created: 1_745_366_400, owned_by: "system" },
  { id: "gpt-5.4", object: "model", created: 1_742_169_600, owned_by: "system" },
  { id: "gpt-5.4-mini", object: "model", created: 1_742_169_600, owned_by: "system" },
  { id: "gpt-5.4-nano", object: "model", created: 1_742_169_600, owned_by: "system" },
  { id: "gpt-5.3-codex", object: "model", created: 1_739_491_200, owned_by: "system" },
];

export function modelList(): unknown {
  return { object: "list", data: MODELS };
}
