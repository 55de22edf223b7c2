import type { ChatChunk, ToolCall, Usage } from "@/lib/providers/types";
import type { GuardrailsOutput, ModelOutput, RunBill, RunRequest } from "@/lib/runs/context";
import type { SseFrame } from "@/lib/http/sse-writer";
import { randomBase62 } from "@/lib/ids";

/** What the Messages wire reads of a finished (or streaming) run. */
export type MessageAnswer = Pick<RunRequest, "responseId" | "requestedModel"> &
  Pick<ModelOutput, "content" | "toolCalls" | "finishReason"> &
  Pick<RunBill, "usage"> &
  Pick<GuardrailsOutput, "appliedRules">;

/** The chat format's finish reason as Anthropic's `stop_reason`. */
function stopReason(finish: string): "end_turn" | "max_tokens" | "tool_use" | "refusal" {
  switch (finish) {
    case "length":
      return "max_tokens";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}

/** Anthropic counts cache reads apart from `input_tokens`; our prompt tokens include them. */
function anthropicUsage(u: Usage) {
  return {
    input_tokens: Math.max(0, u.promptTokens - u.cachedTokens),
    output_tokens: u.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cachedTokens,
  };
}

/** A tool call's JSON arguments as a tool_use block's `input` (an object; unparsable text gives `{}`). */
function toolInput(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args || "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

const toolUseBlock = (call: ToolCall) => ({
  type: "tool_use" as const,
  id: call.id,
  name: call.function.name,
  input: toolInput(call.function.arguments),
});

/** The run's answer as Anthropic's `message` object. */
export function toAnthropicMessage(ctx: MessageAnswer) {
  return {
    id: ctx.responseId,
    type: "message" as const,
    role: "assistant" as const,
    model: ctx.requestedModel,
    content: [
      ...(ctx.content ? [{ type: "text" as const, text: ctx.content }] : []),
      ...ctx.toolCalls.map(toolUseBlock),
    ],
    stop_reason: stopReason(ctx.finishReason || "stop"),
    stop_sequence: null,
    usage: anthropicUsage(ctx.usage),
    ...(ctx.appliedRules.length ? { applied_rules: ctx.appliedRules } : {}),
  };
}

/** Anthropic names each event twice: the SSE `event:` line and the payload's `type`. */
const event = (type: string, data: Record<string, unknown> = {}): SseFrame => ({
  event: type,
  data: { type, ...data },
});

/**
 * Anthropic's stream events for a run, fed the chat chunks as they arrive: `message_start` and a
 * `ping`, then content blocks (a text block takes `text_delta`s, each tool call is a tool_use block
 * taking `input_json_delta`s), and once the run is billed a `message_delta` with the stop reason
 * and the final usage, then `message_stop`. Stateful: one per stream.
 */
export function messageEvents(ctx: MessageAnswer, inputTokens: () => number) {
  let index = -1;
  /** The open block: text, or the tool call (chat-chunk index) it carries. */
  let open: { kind: "text" } | { kind: "tool"; call: number } | null = null;
  const close = (): SseFrame[] => {
    if (!open) return [];
    open = null;
    return [event("content_block_stop", { index })];
  };
  const begin = (block: Record<string, unknown>, next: NonNullable<typeof open>): SseFrame[] => {
    const frames = close();
    index += 1;
    open = next;
    frames.push(event("content_block_start", { index, content_block: block }));
    return frames;
  };
  return {
    start: (): SseFrame[] => [
      event("message_start", {
        message: {
          id: ctx.responseId,
          type: "message",
          role: "assistant",
          model: ctx.requestedModel,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...anthropicUsage({ promptTokens: inputTokens(), completionTokens: 0, cachedTokens: 0 }) },
        },
      }),
      event("ping"),
    ],
    chunk: (chunk: ChatChunk): SseFrame[] => {
      const frames: SseFrame[] = [];
      if (chunk.content) {
        if (open?.kind !== "text") frames.push(...begin({ type: "text", text: "" }, { kind: "text" }));
        frames.push(event("content_block_delta", { index, delta: { type: "text_delta", text: chunk.content } }));
      }
      for (const d of chunk.toolCalls ?? []) {
        if (open?.kind !== "tool" || open.call !== d.index) {
          const block = {
            type: "tool_use",
            id: d.id ?? `toolu_${randomBase62(24)}`,
            name: d.function?.name ?? "",
            input: {},
          };
          frames.push(...begin(block, { kind: "tool", call: d.index }));
        }
        const args = d.function?.arguments;
        if (args)
          frames.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args } }));
      }
      return frames;
    },
    /** Closes the last block; the stop reason waits for the final usage (`end`). */
    finish: (): SseFrame[] => close(),
    end: (): SseFrame[] => [
      ...close(),
      event("message_delta", {
        delta: { stop_reason: stopReason(ctx.finishReason || "stop"), stop_sequence: null },
        usage: anthropicUsage(ctx.usage),
        ...(ctx.appliedRules.length ? { applied_rules: ctx.appliedRules } : {}),
      }),
      event("message_stop"),
    ],
    /** A failure after the first byte: Anthropic's `error` event ends the stream. */
    error: (body: unknown): SseFrame[] => [{ event: "error", data: body }],
  };
}
