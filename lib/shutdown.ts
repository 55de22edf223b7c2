/**
 * Work run when the production server stops, after requests in flight ended. The registry lives on
 * globalThis since scripts/server/main.mjs is outside the Next.js bundle.
 */
export type ShutdownHook = () => Promise<unknown> | unknown;

const KEY = Symbol.for("cockpit.shutdown-hooks");

export function onShutdown(hook: ShutdownHook): void {
  const g = globalThis as { [KEY]?: ShutdownHook[] };
  (g[KEY] ??= []).push(hook);
}

/** Runs the hooks, passing failures to `onError`; main.mjs has its own copy, the jobs thread uses this one. */
export async function runShutdownHooks(onError: (err: unknown) => void): Promise<void> {
  const hooks = (globalThis as { [KEY]?: ShutdownHook[] })[KEY] ?? [];
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
interface GraceEnd {
  ended: boolean;
  cancels: Set<() => void>;
}

const GRACE_KEY = Symbol.for("cockpit.grace-end");

function graceEnd(): GraceEnd {
  const g = globalThis as { [GRACE_KEY]?: GraceEnd };
  return (g[GRACE_KEY] ??= { ended: false, cancels: new Set() });
}

/** Registers `cancel` for the grace's end (called at once if it has passed); returns the function that unregisters it. */
export function cancelAtGraceEnd(cancel: () => void): () => void {
  const state = graceEnd();
  if (state.ended) {
    cancel();
    return () => {};
  }
  state.cancels.add(cancel);
  return () => state.cancels.delete(cancel);
}
