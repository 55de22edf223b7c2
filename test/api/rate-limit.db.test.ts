import { describe, expect, it } from "vitest";
import { relaxedSql } from "@/db/client";
import { newId } from "@/lib/ids";
import { RateLimiterRes } from "rate-limiter-flexible";
import { RateLimiterPostgresJs } from "@/lib/rate-limit/postgres-store";
import { chunkFor } from "@/lib/rate-limit/grant-policy";
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
    const limiter = new RateLimiterPostgresJs({
      storeClient: relaxedSql,
      points: 2,
      duration: 1,
      keyPrefix: "rl-test",
    });
    const key = subject();
    expect((await limiter.consume(key)).remainingPoints).toBe(1);
    expect((await limiter.consume(key)).remainingPoints).toBe(0);
    await expect(limiter.consume(key)).rejects.toBeInstanceOf(RateLimiterRes);
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await limiter.consume(key);
    expect(fresh).toMatchObject({ remainingPoints: 1, consumedPoints: 1, isFirstInDuration: true });
  });

  it("reads, rewards and deletes through the same table", async () => {
    const limiter = new RateLimiterPostgresJs({
      storeClient: relaxedSql,
      points: 5,
      duration: 60,
      keyPrefix: "rl-test",
    });
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

describe("grants for high limits", () => {
  it("admit exactly the limit under 3000 parallel calls, counting every call in the store first", async () => {
    const key = subject();
    const limit = 2560; // chunks of 40
    expect(chunkFor(limit)).toBe(40);
    const decisions = await Promise.all(Array.from({ length: 3000 }, () => consumeRateLimit(key, limit)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(limit);
    const [row] = await relaxedSql<{ points: number }[]>`select points from rate_limits where key = ${`rl:${key}`}`;
    expect(row!.points).toBeGreaterThanOrEqual(limit);
    // Refusals carry the window's reset; the store is no longer asked once it counted the limit.
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused).toMatchObject({ remaining: 0, limit });
    expect(refused.resetMs).toBeGreaterThan(50_000);
    const after = row!.points;
    expect((await consumeRateLimit(key, limit)).allowed).toBe(false);
    const [again] = await relaxedSql<{ points: number }[]>`select points from rate_limits where key = ${`rl:${key}`}`;
    expect(again!.points).toBe(after);
  });

  it("hand out a partial last grant when the store has fewer calls left than a chunk", async () => {
    const key = subject();
    const limit = 640; // chunks of 10
    // Another process already used 635 of this window.
    const other = new RateLimiterPostgresJs({ storeClient: relaxedSql, points: limit, duration: 60, keyPrefix: "rl" });
    await other.consume(key, 635);
    const decisions = [];
    for (let i = 0; i < 8; i++) decisions.push(await consumeRateLimit(key, limit));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(decisions[0]!.remaining).toBe(4);
    expect(decisions[4]!.remaining).toBe(0);
  });

  it("report remaining calls that go down one per call", async () => {
    const key = subject();
    const seen = [];
    for (let i = 0; i < 25; i++) seen.push((await consumeRateLimit(key, 6400)).remaining);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1]! - 1);
    expect(seen[0]).toBe(6399);
  });
});
