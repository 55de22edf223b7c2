/** @internal */
export const ERROR_CODES = {
  invalid_request: { status: 400, type: "invalid_request_error" },
  unauthenticated: { status: 401, type: "authentication_error" },
  insufficient_balance: { status: 402, type: "insufficient_balance" },
  forbidden: { status: 403, type: "permission_error" },
  not_found: { status: 404, type: "not_found_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  request_timeout: { status: 408, type: "invalid_request_error" },
  conflict: { status: 409, type: "conflict_error" },
  payload_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  upstream_error: { status: 502, type: "upstream_error" },
  internal: { status: 500, type: "api_error" },
  /** The server is protecting itself (too many large bodies in flight); retry shortly. */
  unavailable: { status: 503, type: "api_error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  /** OpenAI-style machine code sent as `error.code` (defaults to the AppError code). */
  wireCode?: string;
  param?: string | null;
  headers?: Record<string, string>;
  cause?: unknown;
  /** Extra top-level fields of the error body (e.g. `run_id`). */
  extra?: Record<string, unknown>;
}

/** The one error class. `cause` is logged, never sent to the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly wireCode: string;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.wireCode = options.wireCode ?? code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function errorBody(err: AppError) {
  return {
    error: {
      message: err.message,
      type: ERROR_CODES[err.code].type,
      code: err.wireCode,
      param: err.param,
    },
    ...err.extra,
  };
}

export const notFound = (what: string) =>
  new AppError("not_found", `No ${what} found with that id`, { wireCode: "not_found" });
