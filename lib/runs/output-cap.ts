import { readCatalog } from "@/db/catalog/sync";

/**
 * Output cap for a call whose request sets none. The hold covers exactly this and the same cap goes
 * upstream, so a call can never generate more than it held; clients wanting longer answers set
 * max_tokens.
 */
const DEFAULT_OUTPUT_CAP_TOKENS = 16_384;

let maxOutput: Map<string, number> | undefined;

/** The provider's documented per-request output maximum for a slug (catalog `max_output_tokens`), if any. */
export function modelMaxOutputTokens(slug: string): number | undefined {
  if (!maxOutput) {
    maxOutput = new Map();
    for (const g of readCatalog().groups)
      for (const m of g.models) if (m.max_output_tokens) maxOutput.set(m.slug, m.max_output_tokens);
  }
  return maxOutput.get(slug);
}

/**
 * The request's cap (the smaller of `max_tokens` and `max_completion_tokens`, since a provider
 * honours one), else the default bounded by the model's maximum; never more than the context window
 * leaves.
 */
export function outputCap(args: { requested: number | undefined; slug: string; contextRoom: number }): number {
  const fallback = Math.min(DEFAULT_OUTPUT_CAP_TOKENS, modelMaxOutputTokens(args.slug) ?? DEFAULT_OUTPUT_CAP_TOKENS);
  return Math.max(1, Math.min(args.requested ?? fallback, args.contextRoom));
}
