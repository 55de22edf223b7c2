import { describe, expect, it } from "vitest";
import { mapYielding } from "./map-yielding";

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

describe("mapYielding", () => {
  it("maps in order, awaiting results", async () => {
    expect(await mapYielding([1, 2, 3], async (n, i) => n * 10 + i)).toEqual([10, 21, 32]);
    expect(await mapYielding([], (n: number) => n)).toEqual([]);
  });

  it("lets the event loop run between slices of long work", async () => {
    let otherRan = false;
    setImmediate(() => (otherRan = true));
    const seen = await mapYielding([0, 1, 2, 3], () => {
      busy(10);
      return otherRan;
    });
    // The first item cannot see it; a later one must, since each item outlasts a slice.
    expect(seen[0]).toBe(false);
    expect(seen.slice(1)).toContain(true);
  });
});
