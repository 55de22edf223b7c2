/** Work done between two yields to the event loop: other tenants' calls wait at most about this long. */
export const SLICE_MS = 8;

export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `items.map(fn)`, awaiting each result and yielding to the event loop whenever SLICE_MS of work
 * has gone by, so a request of 2,048 inputs never holds the loop for all of them at once.
 */
export async function mapYielding<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => R | Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    out.push(await fn(items[i]!, i));
    if (performance.now() - sliceStart >= SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return out;
}
