import { describe, expect, it } from "vitest";
import type { Scope } from "@/db/enums";
import { AppError } from "@/lib/errors";
import { boundByCreator } from "./bound-by-creator";

const HOUR = 3_600_000;
const creatorExpiry = new Date(Date.UTC(2030, 0, 1));
const creator = { scopes: ["chat", "admin"] as Scope[], rateLimitPerMinute: 60, expiresAt: creatorExpiry };

function paramOf(fn: () => unknown): string | null {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    return (err as AppError).param;
  }
  throw new Error("did not throw");
}

describe("boundByCreator", () => {
  it("refuses a scope the creator lacks, naming scopes", () => {
    expect(paramOf(() => boundByCreator(creator, { scopes: ["admin", "view"] }))).toBe("scopes");
  });

  it("refuses a rate limit above the creator's, and caps the default at it", () => {
    expect(paramOf(() => boundByCreator(creator, { scopes: ["chat"], rateLimitPerMinute: 61 }))).toBe(
      "rate_limit_per_minute",
    );
    expect(boundByCreator(creator, { scopes: ["chat"], rateLimitPerMinute: 60 }).rateLimitPerMinute).toBe(60);
    expect(boundByCreator({ ...creator, rateLimitPerMinute: 10 }, { scopes: ["chat"] }).rateLimitPerMinute).toBe(10);
    expect(boundByCreator({ ...creator, rateLimitPerMinute: 5000 }, { scopes: ["chat"] }).rateLimitPerMinute).toBe(60);
  });

  it("refuses an expiry later than the creator's; none asked for inherits it", () => {
    expect(
      paramOf(() => boundByCreator(creator, { scopes: ["chat"], expiresAt: new Date(creatorExpiry.getTime() + 1) })),
    ).toBe("expires_at");
    expect(boundByCreator(creator, { scopes: ["chat"] }).expiresAt).toEqual(creatorExpiry);
    expect(boundByCreator(creator, { scopes: ["chat"], expiresAt: null }).expiresAt).toEqual(creatorExpiry);
    const earlier = new Date(creatorExpiry.getTime() - HOUR);
    expect(boundByCreator(creator, { scopes: ["chat"], expiresAt: earlier }).expiresAt).toEqual(earlier);
    expect(boundByCreator(creator, { scopes: ["chat"], expiresAt: creatorExpiry }).expiresAt).toEqual(creatorExpiry);
  });

  it("a creator without expiry allows any expiry or none", () => {
    const forever = { ...creator, expiresAt: null };
    expect(boundByCreator(forever, { scopes: ["chat"] }).expiresAt).toBeNull();
    const later = new Date(Date.UTC(2099, 0, 1));
    expect(boundByCreator(forever, { scopes: ["chat"], expiresAt: later }).expiresAt).toEqual(later);
  });
});
