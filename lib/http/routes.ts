import { AppError } from "@/lib/errors";
import { preflightResponse } from "./cors";
import { publicRoute, type RouteHandler } from "./api-route";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * The given handlers, an OPTIONS preflight, and a 405 in the OpenAI error body for the rest (Next's
 * has no body). Usage: `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({ GET:
 * apiRoute(…) })`.
 */
export function routes(handlers: Partial<Record<Method, RouteHandler>>): Record<Method | "OPTIONS", RouteHandler> {
  const allowed = METHODS.filter((m) => handlers[m]);
  const notAllowed = publicRoute(async ({ req }) => {
    throw new AppError(
      "method_not_allowed",
      `Method ${req.method} is not allowed here; allowed: ${allowed.join(", ")}`,
      {
        wireCode: "method_not_allowed",
        headers: { allow: [...allowed, "OPTIONS"].join(", ") },
      },
    );
  });
  const pick = (m: Method) => handlers[m] ?? notAllowed;
  return {
    GET: pick("GET"),
    POST: pick("POST"),
    PUT: pick("PUT"),
    PATCH: pick("PATCH"),
    DELETE: pick("DELETE"),
    OPTIONS: async (req: Request) => preflightResponse(req, allowed),
  };
}
