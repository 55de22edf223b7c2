import { holdCredit } from "@/lib/billing/lease";
import { worstCaseMicro } from "@/lib/models";
import { AppError } from "@/lib/errors";
import { countPromptTokens, promptParts, promptTokenBound } from "@/lib/providers/tokens";
import { countTokensOffLoop } from "@/lib/cpu/pool";
import {
  stageCallsMicro,
  type MultimodalOutput,
  type RetrievalOutput,
  type RunBill,
  type RunPrompt,
  type RunRequest,
  type Stage,
} from "../context";

type Ctx = RunRequest & RunPrompt & MultimodalOutput & RetrievalOutput & RunBill;
import { modelRequest } from "../model-request";
import { outputCap } from "../output-cap";

/**
 * Below this many bytes the hold counts the prompt by its byte bound (at most this many tokens
 * more than the exact count: a fraction of a cent at any listed price) and skips the tokenizer;
 * above it the prompt is tokenized so long prompts are not over-held.
 */
const EXACT_COUNT_ABOVE_BYTES = 4096;
/** Prompts whose byte bound is above this are tokenized in the CPU worker, not on the event loop. */
const TOKENIZE_OFF_LOOP_ABOVE_BYTES = 64 * 1024;

const contextExceeded = (window: number, tokens?: number) =>
  new AppError(
    "invalid_request",
    `This model's maximum context length is ${window} tokens; the messages are ${tokens ? `${tokens} tokens` : "longer"}. Shorten them.`,
    { param: "messages", wireCode: "context_length_exceeded" },
  );

/** The prompt's tokens for the hold: its byte bound when small, else an exact count (never megabytes on the event loop). */
async function promptTokensFor(ctx: Ctx, req: ReturnType<typeof modelRequest>): Promise<number> {
  const bound = promptTokenBound(req.messages, req.tools);
  if (bound <= EXACT_COUNT_ABOVE_BYTES) return bound;
  const window = ctx.model.model.contextWindow;
  if (ctx.promptTextTokens !== undefined)
    return (ctx.promptTokens = promptParts(req.messages, req.tools).fixed + ctx.promptTextTokens);
  if (bound <= TOKENIZE_OFF_LOOP_ABOVE_BYTES) return (ctx.promptTokens = countPromptTokens(req.messages, req.tools));
  const { texts, fixed } = promptParts(req.messages, req.tools);
  const n = await countTokensOffLoop(texts, Math.max(0, window - fixed));
  if (n === null) throw contextExceeded(window);
  return (ctx.promptTokens = fixed + n);
}

/**
 * Holds the worst case (input + output cap at the model's prices) before any upstream call: 402 if
 * short. The output cap held is the cap the upstream receives (ctx.maxOutputTokens is set to it and
 * every adapter sends it), so an honest provider can never bill more than the hold.
 */
export const reserveCreditStage: Stage<Ctx> = {
  name: "reserve-credit",
  async run(ctx) {
    const req = modelRequest(ctx);
    const promptTokens = await promptTokensFor(ctx, req);
    // Refused here, before any credit is held or upstream call made (the provider would refuse it too).
    if (promptTokens > ctx.model.model.contextWindow)
      throw contextExceeded(ctx.model.model.contextWindow, promptTokens);
    const room = ctx.model.model.contextWindow - promptTokens;
    ctx.maxOutputTokens = outputCap({ requested: ctx.maxOutputTokens, slug: ctx.model.model.slug, contextRoom: room });
    // Stage calls (image descriptions) already happened: their known cost is held with the worst case.
    ctx.hold = await holdCredit(
      ctx.companyId,
      worstCaseMicro(promptTokens, ctx.maxOutputTokens, ctx.model.prices) + stageCallsMicro(ctx),
    );
  },
};
