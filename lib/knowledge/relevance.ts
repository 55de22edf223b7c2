/**
 * A fused reciprocal-rank score as a share of the best one possible, 0 to 1: 1 is first in every
 * ranker that ran, 0.5 first in one of two. Monotonic in the score, so it never reorders results.
 * RRF scores themselves (about 1/61 per ranker) mean nothing to a person.
 */
export function rrfRelevance(args: { fused: number; rankers: number; k: number }): number {
  if (args.rankers <= 0 || args.fused <= 0) return 0;
  const best = args.rankers / (args.k + 1);
  return Math.min(1, Math.round((args.fused / best) * 1000) / 1000);
}
