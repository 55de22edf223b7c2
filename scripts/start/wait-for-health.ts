import type { ChildProcess } from "node:child_process";

/** Where a client on this machine reaches a server bound to `host`: wildcard binds answer on loopback. */
export function loopbackOrigin(host: string, port: number): string {
  const reach = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reach.includes(":") ? `[${reach}]` : reach}:${port}`;
}

/** Resolves true once `${origin}/api/health` answers 200, false if `server` exits first. */
export async function waitForHealth(origin: string, server: ChildProcess): Promise<boolean> {
  let exited = server.exitCode !== null || server.signalCode !== null;
  server.once("exit", () => (exited = true));
  while (!exited) {
    try {
      const res = await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(5000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
