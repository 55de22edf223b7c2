import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { checkDatabase, DatabaseUnavailableError, dbState, setDatabaseProbe } from "@/db/resilience";

/**
 * The breaker (db/resilience.ts) tells a slow server from a gone one. Seen twice on a starved
 * 2-core box: a pool queue made a query wait past 1 s, the probe's new connection took longer than
 * its 1 s, and the breaker opened while queries were still being answered, turning overload into
 * 503s. A probe that times out while the server answers other queries now leaves it closed; one
 * that times out while nothing is answered (a blackhole) still opens it.
 */
// db/client.ts's probe uses a connection of its own; an answering stand-in restores the state here.
const realProbe = async () => {};
const hangingProbe = () => new Promise<never>(() => {});

afterEach(async () => {
  setDatabaseProbe(realProbe);
  for (let i = 0; i < 20 && dbState() !== "up"; i++) await checkDatabase();
});

describe("the database breaker under overload", () => {
  it("a probe that times out while queries are answered leaves the breaker closed", async () => {
    setDatabaseProbe(hangingProbe);
    const probing = checkDatabase();
    let answers = 0;
    const until = Date.now() + 1_300;
    while (Date.now() < until) {
      await db.execute(sql`SELECT 1`);
      answers++;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await probing).toBe(false);
    expect(answers).toBeGreaterThan(5);
    expect(dbState()).toBe("up");
  });

  it("a probe that times out while nothing is answered opens it; a probe that answers closes it", async () => {
    setDatabaseProbe(hangingProbe);
    expect(await checkDatabase()).toBe(false);
    expect(dbState()).toBe("down");
    const refused = (await db.execute(sql`SELECT 1`).catch((e: unknown) => e)) as Error & { cause?: unknown };
    expect(refused.cause ?? refused).toBeInstanceOf(DatabaseUnavailableError);
    // A probe that answers (the real one opens a connection of its own: db/client.ts).
    setDatabaseProbe(async () => {});
    expect(await checkDatabase()).toBe(true);
    expect(dbState()).toBe("up");
  });
});
