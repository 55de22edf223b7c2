import { describe, expect, it, vi } from "vitest";
import { ChatCompletionInput } from "@/lib/completions/schemas";
import { AppError, ERROR_CODES, type ErrorCode } from "@/lib/errors";
import { log } from "@/lib/log";
import { toErrorResponse, zodToAppError } from "./error-response";

const zodError = (value: unknown) => {
  const parsed = ChatCompletionInput.safeParse(value);
  if (parsed.success) throw new Error("expected a validation error");
  return zodToAppError(parsed.error);
};

describe("error mapping", () => {
  it("maps every code to its status and OpenAI type (CONTRACT 4)", () => {
    const expected: Record<ErrorCode, [number, string]> = {
      invalid_request: [400, "invalid_request_error"],
      unauthenticated: [401, "authentication_error"],
      insufficient_balance: [402, "insufficient_balance"],
      forbidden: [403, "permission_error"],
      not_found: [404, "not_found_error"],
      method_not_allowed: [405, "invalid_request_error"],
      request_timeout: [408, "invalid_request_error"],
      conflict: [409, "conflict_error"],
      payload_too_large: [413, "invalid_request_error"],
      unsupported_media_type: [415, "invalid_request_error"],
      rate_limited: [429, "rate_limit_error"],
      upstream_error: [502, "upstream_error"],
      internal: [500, "api_error"],
      unavailable: [503, "api_error"],
    };
    for (const [code, [status, type]] of Object.entries(expected) as [ErrorCode, [number, string]][]) {
      expect(ERROR_CODES[code]).toEqual({ status, type });
      expect(new AppError(code, "x").status).toBe(status);
    }
  });

  it("sends the OpenAI body, the wire code, param and headers, and never the cause", async () => {
    const err = new AppError("upstream_error", "Upstream provider error: openai returned 500: boom", {
      wireCode: "upstream_500",
      param: null,
      headers: { "retry-after": "1" },
      cause: new Error("sk-live-secret in the cause"),
    });
    const res = toErrorResponse(err, "req_1");
    expect(res.status).toBe(502);
    expect(res.headers.get("retry-after")).toBe("1");
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        message: "Upstream provider error: openai returned 500: boom",
        type: "upstream_error",
        code: "upstream_500",
        param: null,
      },
    });
    expect(text).not.toContain("sk-live-secret");
  });

  it("turns unknown errors into a generic 500 naming the request id, logged but not echoed", async () => {
    const spy = vi.spyOn(log, "error").mockImplementation(() => undefined);
    const res = toErrorResponse(new Error("password=hunter2 in a stack"), "req_abc");
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: "api_error", code: "internal_error", param: null });
    expect(body.error.message).toContain("req_abc");
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });

  it("names the offending field in `param` for validation errors", () => {
    const base = { model: "gpt-5", messages: [{ role: "user", content: "hi" }] };
    expect(zodError({ ...base, messages: [] })).toMatchObject({ code: "invalid_request", param: "messages" });
    expect(zodError({ ...base, n: 2 })).toMatchObject({ param: "n" });
    expect(zodError({ model: "gpt-5" })).toMatchObject({ param: "messages" });
    expect(zodError({ ...base, temperature: 9 })).toMatchObject({ param: "temperature" });
    const unknown = zodError({ ...base, frobnicate: true });
    expect(unknown.param).toBe("frobnicate");
    expect(unknown.message).toContain("Unrecognized request argument supplied: frobnicate");
  });

  it("names the image URL field when an image is not https or a data: URI", () => {
    const err = zodError({
      model: "gpt-5",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: { url: "http://example.com/a.png" } },
          ],
        },
      ],
    });
    expect(err.status).toBe(400);
    expect(err.param).toBe("messages.0.content.1.image_url.url");
  });
});
