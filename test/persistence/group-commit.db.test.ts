import { sql } from "drizzle-orm";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { databaseUrl } from "@/db/url";
import { makeCompany } from "../support/factories";
import { commitWithGroup } from "@/lib/persistence/group-commit";

describe("group commit", () => {
  it("commits concurrent statements, isolating one that fails from its batch neighbours", async () => {
    const co = await makeCompany(db, { creditsOt: 1 });
    const names = Array.from({ length: 40 }, (_, i) => `gc-${co.id}-${i}`);
    const results = await Promise.allSettled(
      names.map((name, i) =>
        commitWithGroup(
          i === 7
            ? // Statement 7 breaks the balance CHECK constraint: only it may fail, and all of it.
              sql`with bad as (update companies set balance_micro = -1 where id = ${co.id} returning id)
                  insert into companies (id, name) select ${name}, ${name} from bad returning id`
            : sql`insert into companies (id, name) values (${name}, ${name}) returning id`,
        ),
      ),
    );
    for (const [i, r] of results.entries())
      if (i !== 7) expect(r).toMatchObject({ status: "fulfilled", value: [{ id: names[i] }] });
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect(results[7]!.status).toBe("rejected");
    const rows = (await db.execute(
      sql`select count(*)::int as n from companies where id like ${`gc-${co.id}-%`}`,
    )) as unknown as [{ n: number }];
    expect(rows[0].n).toBe(39);
    const [bal] = (await db.execute(sql`select balance_micro from companies where id = ${co.id}`)) as unknown as [
      { balance_micro: string },
    ];
    expect(Number(bal.balance_micro)).toBe(1_000_000);
  });

  it("resolves only after the write is committed and visible to other connections", async () => {
    const id = `gc-visible-${Date.now()}`;
    await commitWithGroup(sql`insert into companies (id, name) values (${id}, 'v')`);
    const rows = (await db.execute(sql`select id from companies where id = ${id}`)) as unknown as unknown[];
    expect(rows).toHaveLength(1);
  });

  it("begins the next batch's transaction during a commit; that transaction's backend killed, its statements still commit", async () => {
    const co = await makeCompany(db);
    const other = postgres(databaseUrl(), { max: 2, onnotice: () => {} });
    try {
      // A lock held here keeps the first statement, and with it the commit in flight, waiting.
      const holder = await other.reserve();
      await holder`BEGIN`;
      await holder`SELECT 1 FROM companies WHERE id = ${co.id} FOR UPDATE`;
      const first = commitWithGroup(sql`update companies set name = 'held' where id = ${co.id} returning id`);
      const names = Array.from({ length: 3 }, (_, i) => `gc-next-${co.id}-${i}`);
      const rest = names.map((name) =>
        commitWithGroup(sql`insert into companies (id, name) values (${name}, ${name}) returning id`),
      );
      // The queued statements' transaction is open before they are sent: a backend idle in a
      // transaction whose last statement is its BEGIN, for longer than another test's would be.
      let begun: { pid: number } | undefined;
      for (let i = 0; i < 100 && !begun; i++) {
        [begun] = await other<{ pid: number }[]>`
          SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction' AND query ILIKE 'begin%'
            AND state_change < now() - interval '100 milliseconds'`;
        if (!begun) await new Promise((r) => setTimeout(r, 20));
      }
      expect(begun).toBeDefined();
      await other`SELECT pg_terminate_backend(${begun!.pid})`;
      // The client has seen that connection close before the statements are handed over: they
      // must then go elsewhere, never to the closed socket.
      await new Promise((r) => setTimeout(r, 200));
      await holder`ROLLBACK`;
      holder.release();
      await expect(first).resolves.toEqual([{ id: co.id }]);
      for (const [i, r] of (await Promise.all(rest)).entries()) expect(r).toEqual([{ id: names[i] }]);
      const [count] = await other<
        { n: number }[]
      >`select count(*)::int as n from companies where id like ${`gc-next-${co.id}-%`}`;
      expect(count?.n).toBe(3);
    } finally {
      await other.end({ timeout: 1 });
    }
  });
});
