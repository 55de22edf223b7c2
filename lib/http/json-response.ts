import { rawResponseBodies } from "@/lib/process-channels.mjs";
import { servedByFastLane } from "./served-by-fast-lane";

/**
 * `Response.json(value, init)` for a hot route's answer. When the fast lane serves `req`, the text
 * goes to the lane through `rawResponseBodies` and the Response carries no body stream to build
 * and read back; through Next.js it is an ordinary JSON response.
 */
export function jsonResponse(req: Request, value: unknown, init: ResponseInit = {}): Response {
  if (!servedByFastLane(req)) return Response.json(value, init);
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  const res = new Response(null, { ...init, headers });
  rawResponseBodies.getOrInit(() => new WeakMap()).set(res, JSON.stringify(value));
  return res;
}
