import { afterEach, describe, expect, it, vi } from "vitest";
import { relaxedSql } from "@/db/client";
import { newId } from "@/lib/ids";

const subject = () => `sweep-test:${newId("key")}`;

/** The limiter and store modules fresh, with no sweep started yet in this process. */
async function freshModules() {
  vi.resetModules();
  delete (globalThis as { __cockpitRateLimitSweeper?: NodeJS.Timeout }).__cockpitRateLimitSweeper;
  const { sweepExpiredRateLimits, SWEEP_EVERY_MS } = await import("./postgres-store");
  const { consumeRateLimit } = await import("./limiter");
  const { GRANT_MIN_LIMIT } = await import("./grant-policy");
  return { sweepExpiredRateLimits, SWEEP_EVERY_MS, consumeRateLimit, GRANT_MIN_LIMIT };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("rate_limits housekeeping", () => {
  it("limiters for many distinct limits start one unref'd sweep timer for the whole process, not one each", async () => {
    const { consumeRateLimit, SWEEP_EVERY_MS, GRANT_MIN_LIMIT } = await freshModules();
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const setIntervalSpy = vi.spyOn(globalThis, "setInterval");
    // 40 call-by-call limits and 10 granted ones: 50 limiter instances.
    const limits = [
      ...Array.from({ length: 40 }, (_, i) => i + 1),
      ...Array.from({ length: 10 }, (_, i) => GRANT_MIN_LIMIT + i),
    ];
    const decisions = await Promise.all(limits.map((perMinute) => consumeRateLimit(subject(), perMinute)));
    expect(decisions.every((d) => d.allowed)).toBe(true);

    const sweeps = [...setTimeoutSpy.mock.calls.entries(), ...setIntervalSpy.mock.calls.entries()].filter(
      ([, [, ms]]) => ms === SWEEP_EVERY_MS,
    );
    expect(sweeps).toHaveLength(1);
    const [index] = sweeps[0]!;
    const timer = (setTimeoutSpy.mock.results[index]?.value ??
      setIntervalSpy.mock.results[index]?.value) as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
  });

  it("one sweep deletes the expired rows of every limit and keeps live windows", async () => {
    const { consumeRateLimit, sweepExpiredRateLimits } = await freshModules();
    const expired = Array.from({ length: 6 }, () => subject());
    const live = subject();
    // Each with its own limit, so each row was written by a different limiter instance.
    await Promise.all(expired.map((s, i) => consumeRateLimit(s, 10 + i)));
    await consumeRateLimit(live, 7);
    const keys = expired.map((s) => `rl:${s}`);
    await relaxedSql`UPDATE rate_limits SET expire = now() - interval '2 hours' WHERE key IN ${relaxedSql(keys)}`;

    expect(await sweepExpiredRateLimits(relaxedSql)).toBeGreaterThanOrEqual(expired.length);
    const left = await relaxedSql<
      { key: string }[]
    >`SELECT key FROM rate_limits WHERE key IN ${relaxedSql([...keys, `rl:${live}`])}`;
    expect(left.map((r) => r.key)).toEqual([`rl:${live}`]);
  });

  it("the sweep's expiry column is indexed", async () => {
    const rows = await relaxedSql<
      { indexdef: string }[]
    >`SELECT indexdef FROM pg_indexes WHERE tablename = 'rate_limits' AND indexdef LIKE '%(expire)%'`;
    expect(rows).toHaveLength(1);
  });
});
