/**
 * Work to do when the production server stops. scripts/server/main.mjs runs these hooks after the
 * requests in flight have ended (SIGINT/SIGTERM), before it exits. The registry lives on
 * globalThis because the server script is outside the Next.js bundle that loads our modules.
 */
export type ShutdownHook = () => Promise<unknown> | unknown;

const KEY = Symbol.for("cockpit.shutdown-hooks");

export function onShutdown(hook: ShutdownHook): void {
  const g = globalThis as { [KEY]?: ShutdownHook[] };
  (g[KEY] ??= []).push(hook);
}

/**
 * Runs the registered hooks, each failure passed to `onError`. The production server runs its own
 * copy of this (scripts/server/main.mjs is outside the bundle, with a time limit); the jobs thread
 * (lib/jobs/thread-main.ts) runs its isolate's hooks through this one.
 */
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
