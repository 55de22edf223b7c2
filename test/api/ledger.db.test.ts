import { spawn } from "node:child_process";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany } from "../support/factories";
import { companies, reservations } from "@/db/schema";
import { AppError } from "@/lib/errors";
import {
  charge,
  getBalance,
  grantCredits,
  otToMicro,
  reconcileReservations,
  releaseReservation,
  reserve,
  settle,
} from "@/lib/billing";
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

  it("reserve holds credit, settle charges the actual cost and releases the rest", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 10 });
      const r = await reserve(tx, { companyId: co.id, amountMicro: 8 * OT });
      // Only 2 O₮ are unreserved now.
      await expect(charge(tx, { companyId: co.id, costMicro: 3 * OT, entry })).rejects.toBeInstanceOf(AppError);
      await expect(reserve(tx, { companyId: co.id, amountMicro: 3 * OT })).rejects.toMatchObject({ status: 402 });
      const settled = await settle(tx, {
        reservation: r,
        costMicro: 1.5 * OT,
        entry: { kind: "completion", source: "completions", model: "m", promptTokens: 10, completionTokens: 5 },
      });
      expect(settled).toMatchObject({
        amountMicro: -1.5 * OT,
        balanceAfterMicro: 8.5 * OT,
        model: "m",
        promptTokens: 10,
        completionTokens: 5,
      });
      const bal = await getBalance(tx, { companyId: co.id });
      expect(bal).toEqual({ balanceMicro: 8.5 * OT, reservedMicro: 0 });
      // Settling twice changes nothing.
      expect(await settle(tx, { reservation: r, costMicro: 1.5 * OT, entry })).toBeNull();
      expect((await getBalance(tx, { companyId: co.id })).balanceMicro).toBe(8.5 * OT);
    });
  });

  it("settle above the hold charges at most what the balance covers, never below zero", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 3 });
      const r = await reserve(tx, { companyId: co.id, amountMicro: 1 * OT });
      const e = await settle(tx, { reservation: r, costMicro: 5 * OT, entry });
      expect(e!.amountMicro).toBe(-3 * OT);
      expect(e!.balanceAfterMicro).toBe(0);
      expect(e!.metadata).toMatchObject({ cost_micro_requested: 5 * OT, cost_micro_unbilled: 2 * OT });
    });
  });

  it("the reconciler releases expired holds; settle after release still bills once", async () => {
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 10 });
      const r = await reserve(tx, { companyId: co.id, amountMicro: 6 * OT });
      const live = await reserve(tx, { companyId: co.id, amountMicro: 1 * OT });
      await tx
        .update(reservations)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(reservations.id, r.id));
      expect(await reconcileReservations(tx)).toBeGreaterThanOrEqual(1);
      expect(await getBalance(tx, { companyId: co.id })).toEqual({ balanceMicro: 10 * OT, reservedMicro: 1 * OT });
      const e = await settle(tx, { reservation: r, costMicro: 2 * OT, entry });
      expect(e!.balanceAfterMicro).toBe(8 * OT);
      expect(await releaseReservation(tx, live)).toBe(true);
      expect(await releaseReservation(tx, live)).toBe(false);
      expect(await getBalance(tx, { companyId: co.id })).toEqual({ balanceMicro: 8 * OT, reservedMicro: 0 });
    });
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

  it("parallel reservations never over-commit the balance", async () => {
    const co = await makeCompany(db, { creditsOt: 50 });
    const results = await Promise.allSettled(
      Array.from({ length: 120 }, () => reserve(db, { companyId: co.id, amountMicro: OT })),
    );
    const held = results
      .filter((r) => r.status === "fulfilled")
      .map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof reserve>>>).value);
    expect(held).toHaveLength(50);
    await Promise.all(held.map((r, i) => settle(db, { reservation: r, costMicro: i % 2 === 0 ? OT : OT / 2, entry })));
    const bal = await getBalance(db, { companyId: co.id });
    expect(bal.reservedMicro).toBe(0);
    expect(bal.balanceMicro).toBe(50 * OT - 25 * OT - 25 * (OT / 2));
    expect(await ledgerSum(co.id)).toBe(bal.balanceMicro);
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
