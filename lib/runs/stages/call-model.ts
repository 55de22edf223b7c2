import { costMicro } from "@/lib/models";
import { completeModel, streamModel } from "@/lib/providers/call-model";
import { countPromptTokens, countTextTokens } from "@/lib/providers/tokens";
import type { ChatChunk, ToolCall } from "@/lib/providers/types";
import type { RunContext, Stage } from "../context";
import { modelRequest } from "../model-request";

/** Folds streamed tool-call fragments into whole calls. */
function mergeToolCalls(calls: ToolCall[], chunk: ChatChunk): void {
  for (const d of chunk.toolCalls ?? []) {
    const call = (calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
    if (d.id) call.id = d.id;
    if (d.function?.name) call.function.name += d.function.name;
    if (d.function?.arguments) call.function.arguments += d.function.arguments;
  }
}

/** Usage from the provider when it gave one, else counted with the tokenizer (also for partial answers). */
export function finalizeUsage(ctx: RunContext, prompt: ReturnType<typeof modelRequest>): void {
  if (!ctx.usageReported) {
    ctx.usage = {
      promptTokens: countPromptTokens(prompt.messages, prompt.tools),
      completionTokens: countTextTokens(ctx.content) + (ctx.toolCalls.length ? countTextTokens(JSON.stringify(ctx.toolCalls)) : 0),
      cachedTokens: 0,
    };
  }
  ctx.costMicro = costMicro(ctx.usage, ctx.model.prices);
}

/**
 * Calls the model. Streaming forwards each upstream chunk to `ctx.onChunk` as it arrives; when the
 * client goes away (signal aborted) the upstream request is aborted with it and what was generated
 * so far is kept for billing.
 */
export const callModelStage: Stage = {
  name: "model",
  async run(ctx) {
    const req = modelRequest(ctx);
    const target = { group: ctx.model.group, upstreamIds: ctx.model.upstreamIds };
    try {
      if (!ctx.stream) {
        const result = await completeModel(target, req, ctx.signal);
        ctx.content = result.content ?? "";
        ctx.toolCalls = result.toolCalls;
        ctx.finishReason = result.finishReason;
        if (result.usage) {
          ctx.usage = result.usage;
          ctx.usageReported = true;
        }
        return;
      }
      const calls: ToolCall[] = [];
      for await (const chunk of streamModel(target, req, ctx.signal)) {
        if (chunk.content) ctx.content += chunk.content;
        if (chunk.toolCalls) mergeToolCalls(calls, chunk);
        if (chunk.finishReason) ctx.finishReason = chunk.finishReason;
        if (chunk.usage) {
          ctx.usage = chunk.usage;
          ctx.usageReported = true;
        }
        ctx.toolCalls = calls.filter(Boolean);
        const wait = ctx.onChunk?.(chunk);
        if (wait) await wait;
      }
    } finally {
      finalizeUsage(ctx, req);
    }
  },
};
