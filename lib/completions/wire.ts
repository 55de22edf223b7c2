import type { GuardrailsOutput, ModelOutput, RetrievalOutput, RunBill, RunRequest } from "@/lib/runs/context";

/** What the wire format reads of a finished (or streaming) run. */
type Answer = Pick<RunRequest, "responseId" | "requestedModel" | "startedAt"> &
  Pick<ModelOutput, "content" | "toolCalls" | "finishReason"> &
  Pick<RunBill, "usage"> &
  Pick<GuardrailsOutput, "appliedRules"> &
  Pick<RetrievalOutput, "citations">;
import type { ChatChunk } from "@/lib/providers/types";

/** CONTRACT 5.9 / OpenAI `usage`, cached tokens inside prompt_tokens. */
function wireUsage(ctx: Pick<RunBill, "usage">) {
  const u = ctx.usage;
  return {
    prompt_tokens: u.promptTokens,
    completion_tokens: u.completionTokens,
    total_tokens: u.promptTokens + u.completionTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

const created = (ctx: Pick<RunRequest, "startedAt">) =>
  Math.floor((Date.now() - (performance.now() - ctx.startedAt)) / 1000);

export function toChatCompletion(ctx: Answer) {
  return {
    id: ctx.responseId,
    object: "chat.completion" as const,
    created: created(ctx),
    model: ctx.requestedModel,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant" as const,
          content: ctx.toolCalls.length && !ctx.content ? null : ctx.content,
          refusal: null,
          ...(ctx.toolCalls.length ? { tool_calls: ctx.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: ctx.finishReason || "stop",
      },
    ],
    usage: wireUsage(ctx),
    ...(ctx.appliedRules.length ? { applied_rules: ctx.appliedRules } : {}),
    ...(ctx.citations.length ? { citations: ctx.citations } : {}),
  };
}

/**
 * `chat.completion.chunk` frames (OpenAI streaming wire format). A content delta, the frame sent
 * most, comes serialized already: the fields every frame repeats are serialized once per stream.
 */
export function chunkFrames(ctx: Answer, includeUsage: boolean) {
  const head = {
    id: ctx.responseId,
    object: "chat.completion.chunk" as const,
    created: created(ctx),
    model: ctx.requestedModel,
    system_fingerprint: null,
    ...(includeUsage ? { usage: null } : {}),
  };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  });
  // `{...head, "choices":[{"index":0,"delta":` and its close: JSON.stringify's text of the object frame.
  const deltaOpen = `${JSON.stringify(head).slice(0, -1)},"choices":[{"index":0,"delta":`;
  const deltaClose = ',"logprobs":null,"finish_reason":null}]}';
  return {
    role: () => ({ ...head, choices: [choice({ role: "assistant", content: "" })] }),
    /** The frame's JSON text, or null for a chunk with nothing to send. */
    delta: (chunk: ChatChunk): string | null => {
      if (!chunk.content && !chunk.toolCalls) return null;
      const delta: Record<string, unknown> = {};
      if (chunk.content) delta.content = chunk.content;
      if (chunk.toolCalls) delta.tool_calls = chunk.toolCalls;
      return deltaOpen + JSON.stringify(delta) + deltaClose;
    },
    /** The finish frame also carries `applied_rules` (CONTRACT 5.9's extra field) when a rule fired. */
    finish: (reason: string) => ({
      ...head,
      choices: [choice({}, reason)],
      ...(ctx.appliedRules.length ? { applied_rules: ctx.appliedRules } : {}),
    }),
    usage: () => ({ ...head, choices: [], usage: wireUsage(ctx) }),
  };
}
