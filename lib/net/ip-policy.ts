import { isIPv4, isIPv6 } from "node:net";

/**
 * Which addresses an outbound fetch of a user URL may reach: public unicast only (RFC 6890 ranges
 * refused); an IPv6 embedding an IPv4 (mapped, NAT64, 6to4…) is judged by that IPv4. Inputs as
 * `dns.lookup` or WHATWG URL give them; anything else is refused, never guessed at.
 */

type V4Range = [base: number, prefix: number, why: string];

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;

const V4_BLOCKED: V4Range[] = [
  [v4(0, 0, 0, 0), 8, "unspecified"],
  [v4(10, 0, 0, 0), 8, "private"],
  [v4(100, 64, 0, 0), 10, "shared (CGNAT)"],
  [v4(127, 0, 0, 0), 8, "loopback"],
  [v4(169, 254, 0, 0), 16, "link-local"],
  [v4(172, 16, 0, 0), 12, "private"],
  [v4(192, 0, 0, 0), 24, "IETF protocol assignments"],
  [v4(192, 0, 2, 0), 24, "documentation"],
  [v4(192, 88, 99, 0), 24, "6to4 relay anycast"],
  [v4(192, 168, 0, 0), 16, "private"],
  [v4(198, 18, 0, 0), 15, "benchmarking"],
  [v4(198, 51, 100, 0), 24, "documentation"],
  [v4(203, 0, 113, 0), 24, "documentation"],
  [v4(224, 0, 0, 0), 4, "multicast"],
  // 240/4 is reserved; it includes 255.255.255.255 (broadcast).
  [v4(240, 0, 0, 0), 4, "reserved or broadcast"],
];

function parseV4(ip: string): number | null {
  if (!isIPv4(ip)) return null;
  const p = ip.split(".").map(Number);
  return v4(p[0]!, p[1]!, p[2]!, p[3]!);
}

function v4Verdict(n: number): string | null {
  for (const [base, prefix, why] of V4_BLOCKED) {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    if ((n & mask) >>> 0 === base) return why;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (dotted-quad tail allowed), or null. */
function parseV6(ip: string): Uint8Array | null {
  if (!isIPv6(ip)) return null;
  let s = ip;
  const lastColon = s.lastIndexOf(":");
  const quad = parseV4(s.slice(lastColon + 1));
  if (quad !== null) s = `${s.slice(0, lastColon + 1)}${(quad >>> 16).toString(16)}:${(quad & 0xffff).toString(16)}`;
  const halves = s.split("::");
  const groups = (x: string) => (x ? x.split(":").map((g) => parseInt(g, 16)) : []);
  const h = groups(halves[0]!);
  const r = halves.length === 2 ? groups(halves[1]!) : [];
  const words = halves.length === 2 ? [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r] : h;
  if (words.length !== 8 || words.some((w) => !(w >= 0 && w <= 0xffff))) return null;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

const startsWith = (b: Uint8Array, prefix: number[]) => prefix.every((x, i) => b[i] === x);
const allZero = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
const v4At = (b: Uint8Array, i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;

function v6Verdict(b: Uint8Array): string | null {
  if (allZero(b, 0, 16)) return "unspecified";
  if (allZero(b, 0, 15) && b[15] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (deprecated compatible), ::ffff:0:a.b.c.d (SIIT).
  if (allZero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return embedded(v4At(b, 12), "IPv4-mapped");
  if (allZero(b, 0, 12)) return embedded(v4At(b, 12), "IPv4-compatible");
  if (allZero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && allZero(b, 10, 12))
    return embedded(v4At(b, 12), "IPv4-translated");
  // 64:ff9b::/96, the NAT64 well-known prefix: a public v4 behind it is an ordinary destination.
  if (startsWith(b, [0, 0x64, 0xff, 0x9b]) && allZero(b, 4, 12)) return embedded(v4At(b, 12), "NAT64");
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 1])) return "local-use NAT64";
  // 2002::/16 (6to4) carries the v4 address in bytes 2..5.
  if (startsWith(b, [0x20, 0x02])) return embedded(v4At(b, 2), "6to4");
  // 2001::/32 (Teredo) hides the client's v4 address XORed; nothing legitimate serves images there.
  if (startsWith(b, [0x20, 0x01, 0, 0])) return "Teredo";
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8])) return "documentation";
  if (startsWith(b, [0x20, 0x01]) && b[2]! < 0x02) return "IETF protocol assignments";
  if (startsWith(b, [0x01, 0, 0, 0]) && allZero(b, 4, 8)) return "discard-only";
  // fd00:ec2::254 (AWS metadata over IPv6) is inside fc00::/7.
  if ((b[0]! & 0xfe) === 0xfc) return "unique local";
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return "link-local";
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return "site-local";
  if (b[0] === 0xff) return "multicast";
  // Everything outside 2000::/3 (global unicast) is reserved.
  if ((b[0]! & 0xe0) !== 0x20) return "reserved";
  return null;
}

function embedded(n: number, kind: string): string | null {
  const why = v4Verdict(n);
  return why ? `${kind} ${why}` : null;
}

/**
 * Why the address is refused (e.g. "loopback"), or null for public unicast. Brackets and a zone id
 * are ignored; a non-address is "not an IP address".
 */
export function blockedReason(address: string): string | null {
  let ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  const n4 = parseV4(ip);
  if (n4 !== null) return v4Verdict(n4);
  const b6 = parseV6(ip);
  if (b6) return v6Verdict(b6);
  return "not an IP address";
}

/** @internal */
export const isPublicAddress = (address: string) => blockedReason(address) === null;
