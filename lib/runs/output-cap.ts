import { readCatalog } from "@/db/catalog/sync";

/**
 * Output cap for a call whose request sets none. The credit hold covers exactly this many output
 * tokens, and the same cap is sent upstream, so a call can never generate more than it held
 * (before, the hold assumed it but the upstream never heard of it: 128k-token answers were billed
 * against a 16k hold). Holding a whole context window's worth of output would lock most balances
 * for one call; a client that wants longer answers asks for them with max_tokens.
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
 * The cap a call runs with: the request's own (the smaller of `max_tokens` and
 * `max_completion_tokens` when both are set, since a provider honours one or the other), else the
 * default bounded by the model's own maximum; never more than the context window leaves.
 */
export function outputCap(args: { requested: number | undefined; slug: string; contextRoom: number }): number {
  const fallback = Math.min(DEFAULT_OUTPUT_CAP_TOKENS, modelMaxOutputTokens(args.slug) ?? DEFAULT_OUTPUT_CAP_TOKENS);
  return Math.max(1, Math.min(args.requested ?? fallback, args.contextRoom));
}
