import { spawn } from "node:child_process";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany } from "../support/factories";
import { companies, ledgerEntries } from "@/db/schema";
import { AppError } from "@/lib/errors";
import { billCall, charge, getBalance, grantCredits, otToMicro } from "@/lib/billing";
import { newId } from "@/lib/ids";
import { withRollback } from "../support/with-rollback";

const OT = 1_000_000;

async function ledgerSum(companyId: string): Promise<number> {
  const [row] = (await db.execute(
    sql`select coalesce(sum(amount_micro), 0)::bigint as s, count(*)::int as n from ledger_entries where company_id = ${companyId}`,
  )) as unknown as [{ s: string; n: number }];
  return Number(row.s);
}

const entry = { kind: "usage" as const, source: "test" };

describe("O₮ ledger", () => {
  it("charges, refuses with 402 when short, and keeps balance = sum of rows", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 5 });
      const e = await charge(tx, { companyId: co.id, costMicro: 2 * OT, entry });
      expect(e.amountMicro).toBe(-2 * OT);
      expect(e.balanceAfterMicro).toBe(3 * OT);
      await expect(charge(tx, { companyId: co.id, costMicro: 4 * OT, entry })).rejects.toMatchObject({ status: 402 });
      const { balanceMicro } = await getBalance(tx, { companyId: co.id });
      expect(balanceMicro).toBe(3 * OT);
    });
  });

  it("a bill above its hold charges at most what the balance covers, never below zero, once", async () => {
    const co = await makeCompany(db, { creditsOt: 3 });
    const bill = {
      companyId: co.id,
      costMicro: 5 * OT,
      billable: true,
      hold: null,
      entry: { ...entry, id: newId("ledger") },
    };
    expect(await billCall(bill)).toMatchObject({ drawnMicro: 0, chargedMicro: 3 * OT, already: false });
    const rows = await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, bill.entry.id));
    expect(rows).toMatchObject([
      {
        amountMicro: -3 * OT,
        balanceAfterMicro: 0,
        metadata: { cost_micro_requested: 5 * OT, cost_micro_unbilled: 2 * OT },
      },
    ]);
    // The same bill again (its acknowledgement was lost) finds its entry and bills nothing.
    expect(await billCall(bill)).toMatchObject({ drawnMicro: 0, already: true });
    expect((await getBalance(db, { companyId: co.id })).balanceMicro).toBe(0);
  });

  it("grants must be positive", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx);
      await expect(
        grantCredits(tx, { companyId: co.id, amountMicro: 0, entry: { source: "t" } }),
      ).rejects.toMatchObject({ status: 400 });
      await expect(
        grantCredits(tx, { companyId: "co_missing", amountMicro: 5, entry: { source: "t" } }),
      ).rejects.toMatchObject({ status: 404 });
    });
  });

  it("300 parallel 1 O₮ charges on 100 O₮: exactly 100 succeed, balance 0, rows sum to the balance", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const results = await Promise.allSettled(
      Array.from({ length: 300 }, () => charge(db, { companyId: co.id, costMicro: OT, entry })),
    );
    const ok = results.filter((r) => r.status === "fulfilled").length;
    const refused = results.filter((r) => r.status === "rejected" && (r.reason as AppError).status === 402).length;
    expect(ok).toBe(100);
    expect(refused).toBe(200);
    const [row] = await db.select().from(companies).where(eq(companies.id, co.id));
    expect(row!.balanceMicro).toBe(0);
    expect(await ledgerSum(co.id)).toBe(0);
  });

  it("the same across two processes: 2 × 150 parallel charges on 100 O₮ → exactly 100 succeed", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const script = path.resolve(__dirname, "../support/charge-burst.ts");
    const runOne = () =>
      new Promise<{ ok: number; refused: number }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            "node_modules/tsx/dist/cli.mjs",
            "--conditions=react-server",
            "--tsconfig",
            "tsconfig.json",
            script,
            co.id,
            "150",
          ],
          {
            env: process.env,
            stdio: ["ignore", "pipe", "inherit"],
          },
        );
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.on("exit", (code) =>
          code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`charge-burst exited ${code}`)),
        );
      });
    const [a, b] = await Promise.all([runOne(), runOne()]);
    expect(a.ok + b.ok).toBe(100);
    expect(a.refused + b.refused).toBe(200);
    expect((await getBalance(db, { companyId: co.id })).balanceMicro).toBe(0);
    expect(await ledgerSum(co.id)).toBe(0);
  });

  it("a CHECK constraint backs the invariant: the balance column itself cannot go negative", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 1 });
      await expect(tx.execute(sql`update companies set balance_micro = -1 where id = ${co.id}`)).rejects.toThrow();
    });
  });

  it("otToMicro matches what the ledger stores", () => {
    expect(otToMicro(100)).toBe(100 * OT);
  });
});
