import "server-only";
import { env } from "@/lib/env";
import { requestPeer } from "@/lib/process-channels.mjs";

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. @internal */
export function isLoopbackAddress(address: string): boolean {
  const bare = address
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "")
    .toLowerCase();
  const v4 = bare.replace(/^::ffff:/, "");
  return bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Whether the request being served comes from this machine, by the socket's peer that
 * scripts/server/main.mjs records (never X-Forwarded-For, which a client writes). `next dev` records
 * none: trusted there only, as it serves the developer's own machine.
 */
export function requestIsFromLoopback(): boolean {
  const address = requestPeer.get()?.getStore()?.address;
  if (address == null) return env.NODE_ENV === "development";
  return isLoopbackAddress(address);
}
