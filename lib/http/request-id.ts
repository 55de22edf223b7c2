import { randomUUID } from "node:crypto";

/** Honour a caller's id when it is short and plain, so logs join across services; else mint one. */
export function requestIdFor(req: Request): string {
  const given = req.headers.get("x-request-id");
  // randomUUID draws from a pre-filled entropy cache: cheaper than fresh random bytes per request.
  return given && /^[\w.:-]{1,64}$/.test(given) ? given : `req_${randomUUID().replaceAll("-", "")}`;
}
