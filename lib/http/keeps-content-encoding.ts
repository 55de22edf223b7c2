import { servedByFastLane } from "./served-by-fast-lane";

/**
 * Whether this request's response keeps a Content-Encoding header: only when the server script
 * writes it (the fast lane). Through Next.js the header is dropped while the body is sent as is,
 * which a client would read as garbage, so such a response must stay uncompressed.
 */
export function keepsContentEncoding(req: Request): boolean {
  return servedByFastLane(req);
}
