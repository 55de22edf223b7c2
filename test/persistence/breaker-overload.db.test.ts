import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { checkDatabase, DatabaseUnavailableError, dbState, setDatabaseProbe } from "@/db/resilience";

/**
 * The breaker tells a slow server from a gone one: a probe that times out while the server answers
 * other queries leaves it closed (overload must not become 503s); one that times out while nothing
 * is answered (a blackhole) opens it.
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

  it("a probe whose connection timed out (connect_timeout) is a timeout too: closed while queries are answered, open when none is", async () => {
    const connectTimedOut = (answerMeanwhile: boolean) => async () => {
      if (answerMeanwhile) await db.execute(sql`SELECT 1`);
      throw new Error("wrapped", { cause: failing("CONNECT_TIMEOUT") });
    };
    setDatabaseProbe(connectTimedOut(true));
    expect(await checkDatabase()).toBe(false);
    expect(dbState()).toBe("up");
    setDatabaseProbe(connectTimedOut(false));
    expect(await checkDatabase()).toBe(false);
    expect(dbState()).toBe("down");
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

/** A driver error as postgres.js raises it: a code, maybe under drizzle's `cause`. */
const failing = (code: string) => Object.assign(new Error(`probe: ${code}`), { code });

describe("a probe whose own connection was cut", () => {
  it("is tried once more on a new connection: a server that answers then stays up (57P01, ECONNRESET)", async () => {
    for (const code of ["57P01", "ECONNRESET"]) {
      let calls = 0;
      setDatabaseProbe(async () => {
        if (++calls === 1) throw new Error("wrapped", { cause: failing(code) });
      });
      expect(await checkDatabase(), code).toBe(true);
      expect(calls, code).toBe(2);
      expect(dbState(), code).toBe("up");
    }
  });

  it("cut twice, the breaker opens; refused or shutting down (57P03), it opens without a second probe", async () => {
    let calls = 0;
    setDatabaseProbe(async () => {
      calls++;
      throw failing("57P01");
    });
    expect(await checkDatabase()).toBe(false);
    expect(calls).toBe(2);
    expect(dbState()).toBe("down");
    setDatabaseProbe(realProbe);
    expect(await checkDatabase()).toBe(true);
    for (const code of ["ECONNREFUSED", "57P03"]) {
      calls = 0;
      setDatabaseProbe(async () => {
        calls++;
        throw failing(code);
      });
      expect(await checkDatabase(), code).toBe(false);
      expect(calls, code).toBe(1);
      expect(dbState(), code).toBe("down");
      setDatabaseProbe(realProbe);
      expect(await checkDatabase(), code).toBe(true);
    }
  });
});
