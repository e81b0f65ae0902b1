// biome-ignore lint/suspicious/noExplicitAny: frames are read field by field and asserted on
type Json = any;

/** Prompt tokens (cache reads and writes included) and output tokens, as a client counts them. */
export interface SeenUsage {
  prompt: number;
  output: number;
}

/** The `data:` JSON of every frame of an SSE text, with its event name. */
function frames(text: string): { event: string; data: Json }[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (data === undefined || data === "[DONE]") return null;
      return { event, data: JSON.parse(data) as Json };
    })
    .filter((f) => f !== null);
}

/**
 * The usage a client read from a stream, in the provider's own terms, parsed here on its own
 * (not with the gateway's reader) so that a test compares the gateway's figures against the
 * bytes the client got.
 */
export function usageSeen(
  format: "messages" | "chat_completions" | "responses",
  text: string,
): SeenUsage | null {
  const all = frames(text);
  switch (format) {
    case "chat_completions": {
      const usage = all.map((f) => f.data.usage).findLast((u) => u);
      return usage ? { prompt: usage.prompt_tokens, output: usage.completion_tokens } : null;
    }
    case "messages": {
      const start = all.find((f) => f.data.type === "message_start")?.data.message.usage;
      if (!start) return null;
      // message_delta counts are cumulative and overwrite what they carry
      const merged = { ...start };
      for (const f of all)
        if (f.data.type === "message_delta")
          for (const [k, v] of Object.entries(f.data.usage ?? {})) if (v !== null) merged[k] = v;
      return {
        prompt:
          merged.input_tokens +
          (merged.cache_read_input_tokens ?? 0) +
          (merged.cache_creation_input_tokens ?? 0),
        output: merged.output_tokens,
      };
    }
    case "responses": {
      const usage = all.find((f) => f.data.type === "response.completed")?.data.response.usage;
      return usage ? { prompt: usage.input_tokens, output: usage.output_tokens } : null;
    }
  }
}
