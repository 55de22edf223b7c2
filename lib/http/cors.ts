// CONTRACT 4: any origin, since auth is a Bearer header, never a cookie.
export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "x-request-id, x-run-id, idempotent-replayed, retry-after, x-ratelimit-limit-requests, x-ratelimit-remaining-requests, x-ratelimit-reset-requests",
};

export function preflightResponse(req: Request, methods: string[]): Response {
  // Echo requested headers so SDKs that add their own (x-stainless-*, openai-beta) work from browsers.
  const requested = req.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "access-control-allow-methods": [...methods, "OPTIONS"].join(", "),
      "access-control-allow-headers": requested ?? "authorization, content-type, idempotency-key, x-request-id",
      "access-control-max-age": "86400",
    },
  });
}
