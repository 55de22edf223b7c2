import { graceEnd, shutdownHooks } from "@/lib/process-channels.mjs";

/**
 * Work run when the production server stops, after requests in flight ended. The registry lives on
 * globalThis since scripts/server/main.mjs is outside the Next.js bundle.
 */
export type ShutdownHook = () => Promise<unknown> | unknown;

export function onShutdown(hook: ShutdownHook): void {
  shutdownHooks.getOrInit(() => []).push(hook);
}

/** Runs the hooks, passing failures to `onError`; main.mjs has its own copy, the jobs thread uses this one. */
export async function runShutdownHooks(onError: (err: unknown) => void): Promise<void> {
  const hooks = shutdownHooks.get() ?? [];
  await Promise.all(
    hooks.map(async (hook) => {
      try {
        await hook();
      } catch (err) {
        onError(err);
      }
    }),
  );
}

/**
 * Calls still running when SHUTDOWN_GRACE_MS ends: each registered cancel ends its call as a client
 * cancel would (billed, thread and credit released) but still tells its client, with an error
 * frame.
 */
/** Registers `cancel` for the grace's end (called at once if it has passed); returns the function that unregisters it. */
export function cancelAtGraceEnd(cancel: () => void): () => void {
  const state = graceEnd.getOrInit(() => ({ ended: false, cancels: new Set() }));
  if (state.ended) {
    cancel();
    return () => {};
  }
  state.cancels.add(cancel);
  return () => state.cancels.delete(cancel);
}
