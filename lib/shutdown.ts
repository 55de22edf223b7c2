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
