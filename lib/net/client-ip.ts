import "server-only";
import { isIPv4, isIPv6 } from "node:net";
import { env } from "@/lib/env";
import { lanePeers, requestPeer } from "@/lib/process-channels.mjs";

/**
 * The socket's remote address, the one address a client cannot choose (X-Forwarded-For is whatever
 * the client wrote unless a trusted proxy did): the fast lane keeps it with its requests,
 * scripts/server/main.mjs runs each request Next.js serves in an AsyncLocalStorage holding it.
 */
function socketAddress(request: Request | undefined): string | null {
  // undefined: not a request the fast lane serves (it records a socket without an address as null).
  const fromLane = request ? lanePeers.get()?.get(request) : undefined;
  if (fromLane !== undefined) return fromLane;
  return requestPeer.get()?.getStore()?.address ?? null;
}

/**
 * The address counters are kept by: IPv4 (mapped IPv6 as IPv4), or IPv6's /64, since a subscriber holds a /64.
 * @internal
 */
export function addressKey(address: string | null | undefined): string | null {
  if (!address) return null;
  const bare = address
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return isIPv4(mapped[1]!) ? mapped[1]! : null;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return null;
  const [head = "", tail = ""] = bare.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = bare.includes("::") ? (tail ? tail.split(":") : []) : [];
  // An embedded IPv4 tail (…:1.2.3.4) is two groups; it never reaches the first four.
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * With `trustedProxies` = 0 the socket's address, whatever X-Forwarded-For says; with N, the Nth
 * entry from the right, since entries further left are the client's to forge.
 * @internal
 */
export function resolveClientAddress(args: {
  socket: string | null;
  forwardedFor: string | null | undefined;
  trustedProxies: number;
}): string | null {
  if (args.trustedProxies > 0 && args.forwardedFor) {
    const hops = args.forwardedFor
      .split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    const hop = hops[Math.max(0, hops.length - args.trustedProxies)];
    const key = addressKey(hop);
    if (key) return key;
  }
  return addressKey(args.socket);
}

/**
 * The requesting client's address key (see addressKey), or null where the server does not say
 * (`next dev`, tests calling a route directly). `request`: the route handler's, when it has one.
 */
export function clientAddress(forwardedFor: string | null | undefined, request?: Request): string | null {
  return resolveClientAddress({ socket: socketAddress(request), forwardedFor, trustedProxies: env.TRUST_PROXY });
}
