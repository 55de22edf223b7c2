/** Content codings the server can send, in its order of preference when the client weighs them equally. */
const CONTENT_CODINGS = ["br", "gzip", "identity"] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** Each listed coding's q-value (RFC 9110 12.5.3); a malformed q counts as 0. */
function weights(header: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of header.split(",")) {
    const [name, ...params] = item.split(";").map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    out.set(name, Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0);
  }
  return out;
}

/**
 * The coding to send for an `Accept-Encoding` header: the highest q-value among `offered`, ties
 * going to the earlier offer. `*` stands for every coding not listed; identity is acceptable unless
 * refused (`identity;q=0`, or `*;q=0` without identity). When every offer is refused, identity
 * anyway: a readable answer beats a 406 for a script.
 */
export function pickContentCoding(
  header: string | null,
  offered: readonly ContentCoding[] = CONTENT_CODINGS,
): ContentCoding {
  if (!header?.trim()) return "identity";
  const w = weights(header);
  const star = w.get("*");
  // Unlisted identity is acceptable but not asked for: any coding the client listed wins over it.
  const weightOf = (c: ContentCoding) => w.get(c) ?? star ?? (c === "identity" ? Number.MIN_VALUE : 0);
  let best: ContentCoding = "identity";
  let bestQ = 0;
  for (const c of offered) {
    const q = weightOf(c);
    if (q > bestQ) [best, bestQ] = [c, q];
  }
  return best;
}
