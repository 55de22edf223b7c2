import { describe, expect, it } from "vitest";
import { rrfRelevance } from "./relevance";

const K = 60;
const rrf = (...ranks: number[]) => ranks.reduce((sum, r) => sum + 1 / (K + r), 0);

describe("rrfRelevance", () => {
  it("is 1 for a chunk first in every ranker that ran", () => {
    expect(rrfRelevance({ fused: rrf(1, 1), rankers: 2, k: K })).toBe(1);
    expect(rrfRelevance({ fused: rrf(1), rankers: 1, k: K })).toBe(1);
  });

  it("is one half for first in one ranker of two, and falls with the ranks", () => {
    expect(rrfRelevance({ fused: rrf(1), rankers: 2, k: K })).toBe(0.5);
    const a = rrfRelevance({ fused: rrf(1, 3), rankers: 2, k: K });
    const b = rrfRelevance({ fused: rrf(2, 10), rankers: 2, k: K });
    const c = rrfRelevance({ fused: rrf(100, 100), rankers: 2, k: K });
    expect(a).toBeLessThan(1);
    expect(b).toBeLessThan(a);
    expect(c).toBeLessThan(b);
    expect(c).toBeCloseTo(61 / 160, 3);
  });

  it("stays within 0..1 and is 0 with no ranker or no score", () => {
    expect(rrfRelevance({ fused: 0, rankers: 2, k: K })).toBe(0);
    expect(rrfRelevance({ fused: rrf(1, 1), rankers: 0, k: K })).toBe(0);
    // A caller that miscounts its rankers still gets a share, never more than 1.
    expect(rrfRelevance({ fused: rrf(1, 1), rankers: 1, k: K })).toBe(1);
  });
});
