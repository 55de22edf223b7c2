import { AppError } from "@/lib/errors";
import { countTokensYielding } from "@/lib/providers/tokens";
import { mapYielding } from "./map-yielding";
import type { EmbeddingInputs } from "./inputs";
import { MAX_INPUT_TOKENS, MAX_REQUEST_TOKENS } from "./schemas";

const tooLong = (message: string) =>
  new AppError("invalid_request", message, { param: "input", wireCode: "context_length_exceeded" });

/**
 * Input tokens of each input: token arrays by length, texts with o200k_base (exact for the local
 * model; for a provider, what is held before its own count is known).
 * @throws 400 naming `input` when one input passes the model's limit or the request MAX_REQUEST_TOKENS.
 */
export async function countInputTokens(inputs: EmbeddingInputs, contextWindow: number): Promise<number[]> {
  const counts =
    inputs.kind === "tokens"
      ? inputs.ids.map((ids) => ids.length)
      : await mapYielding(inputs.texts, (t) => countTokensYielding([t]));
  const limit = Math.min(MAX_INPUT_TOKENS, contextWindow);
  const over = counts.findIndex((n) => n > limit);
  if (over !== -1)
    throw tooLong(`input[${over}] has ${counts[over]} tokens; this model takes at most ${limit} tokens per input`);
  const total = counts.reduce((a, b) => a + b, 0);
  if (total > MAX_REQUEST_TOKENS)
    throw tooLong(`The inputs have ${total} tokens in all; at most ${MAX_REQUEST_TOKENS} per request`);
  return counts;
}
