import { describe, expect, it } from "vitest";
import { relaxedSql } from "@/db/client";
import { newId } from "@/lib/ids";
import { RateLimiterRes } from "rate-limiter-flexible";
import { RateLimiterPostgresJs } from "@/lib/rate-limit/postgres-store";
import { consumeRateLimit } from "@/lib/rate-limit/limiter";

const subject = () => `test:${newId("key")}`;

describe("PostgreSQL rate-limit store", () => {
  it("lets exactly the limit through under 300 parallel calls and reports the window", async () => {
    const key = subject();
    const decisions = await Promise.all(Array.from({ length: 300 }, () => consumeRateLimit(key, 100)));
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(100);
    expect(new Set(allowed.map((d) => d.remaining)).size).toBe(100);
    expect(Math.min(...allowed.map((d) => d.remaining))).toBe(0);
    for (const d of decisions) {
      expect(d.resetMs).toBeGreaterThan(50_000);
      expect(d.resetMs).toBeLessThanOrEqual(60_000);
    }
  });

  it("starts a new window once the old one expired", async () => {
    const limiter = new RateLimiterPostgresJs({ storeClient: relaxedSql, points: 2, duration: 1, keyPrefix: "rl-test" });
    const key = subject();
    expect((await limiter.consume(key)).remainingPoints).toBe(1);
    expect((await limiter.consume(key)).remainingPoints).toBe(0);
    await expect(limiter.consume(key)).rejects.toBeInstanceOf(RateLimiterRes);
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await limiter.consume(key);
    expect(fresh).toMatchObject({ remainingPoints: 1, consumedPoints: 1, isFirstInDuration: true });
  });

  it("reads, rewards and deletes through the same table", async () => {
    const limiter = new RateLimiterPostgresJs({ storeClient: relaxedSql, points: 5, duration: 60, keyPrefix: "rl-test" });
    const key = subject();
    expect(await limiter.get(key)).toBeNull();
    await limiter.consume(key, 3);
    expect((await limiter.get(key))!.consumedPoints).toBe(3);
    await limiter.reward(key, 2);
    expect((await limiter.get(key))!.remainingPoints).toBe(4);
    expect(await limiter.delete(key)).toBe(true);
    expect(await limiter.get(key)).toBeNull();
  });
});
