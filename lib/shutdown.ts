import { graceEnd, shutdownHooks } from "@/lib/process-channels.mjs";

/**
 * Work to do when the production server stops. scripts/server/main.mjs runs these hooks after the
 * requests in flight have ended (SIGINT/SIGTERM), before it exits. The registry is a process
 * channel because the server script is outside the Next.js bundle that loads our modules.
 */
export type ShutdownHook = () => Promise<unknown> | unknown;

export function onShutdown(hook: ShutdownHook): void {
  shutdownHooks.getOrInit(() => []).push(hook);
}

/**
 * Runs the registered hooks, each failure passed to `onError`. The production server runs its own
 * copy of this (scripts/server/main.mjs is outside the bundle, with a time limit); the jobs thread
 * (lib/jobs/thread-main.ts) runs its isolate's hooks through this one.
 */
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
 * Calls still running when the server's SHUTDOWN_GRACE_MS runs out (streams): scripts/server/main.mjs
 * calls every registered cancel then, and each call ends as a client cancel would (billed for what
 * was generated, thread and credit released) but still tells its client, with an error frame.
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
