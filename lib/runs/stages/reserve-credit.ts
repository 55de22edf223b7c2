import { holdCredit } from "@/lib/billing/lease";
import { worstCaseMicro } from "@/lib/models";
import { countPromptTokens, promptTokenBound } from "@/lib/providers/tokens";
import type { Stage } from "../context";
import { modelRequest } from "../model-request";
import { outputCap } from "../output-cap";

/**
 * Below this many bytes the hold counts the prompt by its byte bound (at most this many tokens
 * more than the exact count: a fraction of a cent at any listed price) and skips the tokenizer;
 * above it the prompt is tokenized so long prompts are not over-held.
 */
export const EXACT_COUNT_ABOVE_BYTES = 4096;

/**
 * Holds the worst case (input + output cap at the model's prices) before any upstream call: 402 if
 * short. The output cap held is the cap the upstream receives (ctx.maxOutputTokens is set to it and
 * every adapter sends it), so an honest provider can never bill more than the hold.
 */
export const reserveCreditStage: Stage = {
  name: "reserve-credit",
  async run(ctx) {
    const req = modelRequest(ctx);
    const bound = promptTokenBound(req.messages, req.tools);
    const promptTokens = bound <= EXACT_COUNT_ABOVE_BYTES ? bound : (ctx.promptTokens = countPromptTokens(req.messages, req.tools));
    const room = ctx.model.model.contextWindow - promptTokens;
    ctx.maxOutputTokens = outputCap({ requested: ctx.maxOutputTokens, slug: ctx.model.model.slug, contextRoom: room });
    ctx.hold = await holdCredit(ctx.companyId, worstCaseMicro(promptTokens, ctx.maxOutputTokens, ctx.model.prices));
  },
};
