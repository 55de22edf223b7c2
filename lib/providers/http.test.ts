import { describe, expect, it } from "vitest";
import { parseRetryAfter, sanitizeUpstreamMessage } from "./http";

describe("parseRetryAfter", () => {
  it("reads delay-seconds and HTTP dates, and ignores what it cannot read", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(" 12 ", now)).toBe(12_000);
    expect(parseRetryAfter(["3", "9"], now)).toBe(3000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Sat, 21 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter("", now)).toBeNull();
    expect(parseRetryAfter("-5", now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});

describe("sanitizeUpstreamMessage", () => {
  it("redacts our upstream key and bounds the length", () => {
    const out = sanitizeUpstreamMessage(`bad key sk-upstream-123456 ${"x".repeat(900)}`, ["sk-upstream-123456"]);
    expect(out).not.toContain("sk-upstream-123456");
    expect(out.length).toBe(500);
  });
});
