import { holdCredit } from "@/lib/billing/lease";
import { worstCaseMicro } from "@/lib/models";
import { countPromptTokens, promptTokenBound } from "@/lib/providers/tokens";
import type { Stage } from "../context";
import { modelRequest } from "../model-request";

/**
 * Output cap assumed when the request sets none: holding a whole 1M-token context's worth of
 * output would lock most balances for one call. A longer answer is still billed in full when the
 * balance covers it (settle charges the actual cost, never below zero).
 */
export const DEFAULT_OUTPUT_RESERVE_TOKENS = 16_384;

/**
 * Below this many bytes the hold counts the prompt by its byte bound (at most this many tokens
 * more than the exact count: a fraction of a cent at any listed price) and skips the tokenizer;
 * above it the prompt is tokenized so long prompts are not over-held.
 */
export const EXACT_COUNT_ABOVE_BYTES = 4096;

/** Holds the worst case (input + output cap at the model's prices) before any upstream call: 402 if short. */
export const reserveCreditStage: Stage = {
  name: "reserve-credit",
  async run(ctx) {
    const req = modelRequest(ctx);
    const bound = promptTokenBound(req.messages, req.tools);
    const promptTokens = bound <= EXACT_COUNT_ABOVE_BYTES ? bound : countPromptTokens(req.messages, req.tools);
    const room = Math.max(1, ctx.model.model.contextWindow - promptTokens);
    const cap = Math.min(ctx.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE_TOKENS, room);
    ctx.hold = await holdCredit(ctx.companyId, worstCaseMicro(promptTokens, cap, ctx.model.prices));
  },
};
