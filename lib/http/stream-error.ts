import { AppError, errorBody } from "@/lib/errors";

/** The error frame that ends a stream that failed after its first byte (OpenAI SDKs raise it). */
export function toErrorBodyForStream(err: unknown) {
  if (err instanceof AppError) return errorBody(err);
  return errorBody(new AppError("internal", "The stream failed", { wireCode: "internal_error" }));
}

/** What a stream cut short by the server's shutdown (its grace period ran out) ends with; the generated part is billed. */
export const shutdownError = () =>
  new AppError("unavailable", "The server is shutting down; the answer was cut short", { wireCode: "server_shutdown" });
