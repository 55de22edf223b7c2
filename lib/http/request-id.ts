import { randomBase62 } from "@/lib/ids";

/** Honour a caller's id when it is short and plain, so logs join across services; else mint one. */
export function requestIdFor(req: Request): string {
  const given = req.headers.get("x-request-id");
  return given && /^[\w.:-]{1,64}$/.test(given) ? given : `req_${randomBase62(20)}`;
}
