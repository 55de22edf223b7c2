import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
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
});
