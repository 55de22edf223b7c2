/**
 * What a benchmark set up (servers, databases, temp dirs), undone in reverse order at the end or
 * on SIGINT/SIGTERM (then the process exits 130). `stack` is the list itself: push entries, or
 * remove one that was undone early.
 */
export interface Cleanup {
  name: string;
  fn: () => Promise<unknown> | unknown;
}

export function cleanupStack(log: (message: string) => void): { stack: Cleanup[]; runAll: () => Promise<void> } {
  const stack: Cleanup[] = [];
  const run = async () => {
    while (stack.length) {
      const c = stack.pop()!;
      try {
        await c.fn();
      } catch (err) {
        log(`cleanup ${c.name} failed: ${(err as Error).message}`);
      }
    }
  };
  const onSignal = (sig: NodeJS.Signals) => {
    log(`${sig}: cleaning up`);
    void run().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    stack,
    runAll: async () => {
      await run();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
