import { AppError } from "@/lib/errors";
import { preflightResponse } from "@/lib/http/cors";
import { publicRoute } from "@/lib/http";

/** Unknown /v1 paths: 404 in the OpenAI error body, whatever the method, before any auth. */
const unknownPath = publicRoute(async ({ req }) => {
  throw new AppError("not_found", `Unknown request URL: ${req.method} ${new URL(req.url).pathname}`, {
    wireCode: "unknown_url",
  });
});

export const GET = unknownPath;
export const POST = unknownPath;
export const PUT = unknownPath;
export const PATCH = unknownPath;
export const DELETE = unknownPath;
export const OPTIONS = async (req: Request) => preflightResponse(req, ["GET", "POST", "PUT", "PATCH", "DELETE"]);
