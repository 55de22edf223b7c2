import type { AppError, ErrorCode } from "@/lib/errors";

/**
 * Anthropic's error types (https://docs.anthropic.com/en/api/errors) for our codes. 529
 * `overloaded_error` is not used: a server protecting itself answers 503 `api_error`.
 */
const TYPES: Record<ErrorCode, string> = {
  invalid_request: "invalid_request_error",
  unauthenticated: "authentication_error",
  insufficient_balance: "billing_error",
  forbidden: "permission_error",
  not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  request_timeout: "invalid_request_error",
  conflict: "invalid_request_error",
  payload_too_large: "request_too_large",
  unsupported_media_type: "invalid_request_error",
  rate_limited: "rate_limit_error",
  upstream_error: "api_error",
  internal: "api_error",
  unavailable: "api_error",
};

/** `{"type":"error","error":{"type","message"},"request_id"}`: the body Anthropic's SDKs parse. */
export function anthropicErrorBody(err: AppError, requestId?: string) {
  return {
    type: "error" as const,
    error: { type: TYPES[err.code], message: err.message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/** The apiRoute dialect of the Messages front door: `x-api-key` auth and Anthropic's error body. */
export const ANTHROPIC_DIALECT = {
  keyHeader: "x-api-key",
  errorBody: anthropicErrorBody,
  requestIdHeader: "request-id",
};

/** `GET /v1/models` speaks Anthropic only to a client that says it is one. */
export const wantsAnthropic = (req: Request) => req.headers.has("anthropic-version");

/** The same dialect, for routes shared with OpenAI clients (the model list). */
export const ANTHROPIC_DIALECT_IF_VERSIONED = { ...ANTHROPIC_DIALECT, applies: wantsAnthropic };
