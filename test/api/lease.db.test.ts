import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany } from "../support/factories";
import { companies, reservations } from "@/db/schema";
import {
  billCall,
  DRAW_EXTENDS_BELOW_S,
  endHold,
  getBalance,
  holdCredit,
  LEASE_CALLS,
  LEASE_IDLE_MS,
  LEASE_TTL_S,
  leaseSnapshot,
  reconcileReservations,
  type CreditHold,
} from "@/lib/billing";

const OT = 1_000_000;
const entry = { kind: "completion" as const, source: "completions", model: "m" };

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const heldRows = (companyId: string) =>
  db
    .select()
    .from(reservations)
    .where(eq(reservations.companyId, companyId))
    .then((rows) => rows.filter((r) => r.status === "held"));

/** What persist-run does with a hold: bill the cost (drawn from the lease when it has it), then end the hold. */
async function bill(hold: CreditHold, companyId: string, cost: number): Promise<"drawn" | "charged"> {
  const { drawnMicro } = await billCall({ companyId, costMicro: cost, billable: true, entry, hold });
  endHold(hold, drawnMicro);
  return drawnMicro === cost ? "drawn" : "charged";
}

describe("credit leases", () => {
  it("carve many calls' holds out of one reservation, bill exactly, and go back when idle", async () => {
    const co = await makeCompany(db, { creditsOt: 10_000 });
    const holds = [];
    for (let i = 0; i < 10; i++) holds.push(await holdCredit(co.id, 2 * OT));
    // One lease of LEASE_CALLS worst cases (well under 1/8 of the balance), ten calls in it.
    expect(await heldRows(co.id)).toHaveLength(1);
    expect((await heldRows(co.id))[0]!.amountMicro).toBe(LEASE_CALLS * 2 * OT);
    expect(leaseSnapshot(co.id)).toEqual([
      { heldMicro: LEASE_CALLS * 2 * OT, freeMicro: (LEASE_CALLS - 10) * 2 * OT, inflight: 10 },
    ]);

    for (const h of holds) expect(await bill(h, co.id, 0.5 * OT)).toBe("drawn");
    expect(await getBalance(db, { companyId: co.id })).toEqual({
      balanceMicro: 10_000 * OT - 5 * OT,
      reservedMicro: LEASE_CALLS * 2 * OT - 5 * OT,
    });
    expect(leaseSnapshot(co.id)).toMatchObject([{ heldMicro: LEASE_CALLS * 2 * OT - 5 * OT, inflight: 0 }]);

    // Idle: released in full, and the balance is the sum of the ledger rows.
    await until(async () => (await getBalance(db, { companyId: co.id })).reservedMicro === 0, LEASE_IDLE_MS + 3000);
    expect(await heldRows(co.id)).toHaveLength(0);
    const [sum] = (await db.execute(
      sql`select sum(amount_micro)::bigint as s from ledger_entries where company_id = ${co.id}`,
    )) as unknown as [{ s: string }];
    expect(Number(sum.s)).toBe(10_000 * OT - 5 * OT);
  });

  it("near a zero balance a lease is exactly one call, and 402 comes when the unreserved balance cannot cover it", async () => {
    const co = await makeCompany(db, { creditsOt: 3 });
    const a = await holdCredit(co.id, 2 * OT);
    expect((await heldRows(co.id)).map((r) => r.amountMicro)).toEqual([2 * OT]);
    await expect(holdCredit(co.id, 2 * OT)).rejects.toMatchObject({ status: 402 });
    expect(await bill(a, co.id, 1.5 * OT)).toBe("drawn");
    // The spent lease retires at once when the next call does not fit: 1.5 O₮ left, all of it usable.
    const b = await holdCredit(co.id, 1.5 * OT);
    expect(await bill(b, co.id, 1.5 * OT)).toBe("drawn");
    await until(async () => (await getBalance(db, { companyId: co.id })).reservedMicro === 0, LEASE_IDLE_MS + 3000);
    expect((await getBalance(db, { companyId: co.id })).balanceMicro).toBe(0);
  });

  it("300 parallel 1 O₮ calls on 100 O₮: exactly 100 held, 200 get 402; every bill lands; balance = sum of rows, never negative", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const results = await Promise.allSettled(Array.from({ length: 300 }, () => holdCredit(co.id, 1 * OT)));
    const held = results
      .filter((r): r is PromiseFulfilledResult<CreditHold> => r.status === "fulfilled")
      .map((r) => r.value);
    expect(
      results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason.status === 402),
    ).toBe(true);
    // Leases are whole numbers of calls, so with equal calls every O₮ is usable: exactly 100.
    expect(held).toHaveLength(100);
    const [co1] = await db.select().from(companies).where(eq(companies.id, co.id));
    expect(co1!.reservedMicro).toBeLessThanOrEqual(co1!.balanceMicro);
    expect(co1!.reservedMicro).toBeGreaterThanOrEqual(held.length * OT);

    const billed = await Promise.all(held.map((h) => bill(h, co.id, 1 * OT)));
    expect(billed.every((b) => b === "drawn")).toBe(true);
    await until(async () => (await getBalance(db, { companyId: co.id })).reservedMicro === 0, LEASE_IDLE_MS + 3000);
    const bal = await getBalance(db, { companyId: co.id });
    expect(bal.balanceMicro).toBe(100 * OT - held.length * OT);
    const [sum] = (await db.execute(
      sql`select sum(amount_micro)::bigint as s from ledger_entries where company_id = ${co.id}`,
    )) as unknown as [{ s: string }];
    expect(Number(sum.s)).toBe(bal.balanceMicro);
  });

  it("expire LEASE_TTL_S after they open, so a stopped server's credit comes back through the reconciler", async () => {
    const co = await makeCompany(db, { creditsOt: 1000 });
    const h = await holdCredit(co.id, 1 * OT);
    const expiresIn = async () => {
      const [row] = (await db.execute(
        sql`select extract(epoch from expires_at - now())::float8 as s from reservations where id = ${h.lease!.id}`,
      )) as unknown as [{ s: number }];
      return row.s;
    };
    expect(await expiresIn()).toBeGreaterThan(LEASE_TTL_S - 5);
    expect(await expiresIn()).toBeLessThanOrEqual(LEASE_TTL_S);
    // A server that died with this lease: once past its expiry the reconciler gives it back.
    await db.execute(sql`update reservations set expires_at = now() - interval '1 second' where id = ${h.lease!.id}`);
    expect(await reconcileReservations(db)).toBeGreaterThanOrEqual(1);
    expect((await getBalance(db, { companyId: co.id })).reservedMicro).toBe(0);
    // The call that was still running is billed from the balance instead.
    expect(await bill(h, co.id, 0.25 * OT)).toBe("charged");
    expect((await getBalance(db, { companyId: co.id })).balanceMicro).toBe(1000 * OT - 0.25 * OT);
  });

  it("move a lease's expiry on a draw only once fewer than DRAW_EXTENDS_BELOW_S are left", async () => {
    const co = await makeCompany(db, { creditsOt: 1000 });
    const first = await holdCredit(co.id, 1 * OT);
    const second = await holdCredit(co.id, 1 * OT);
    expect(second.lease!.id).toBe(first.lease!.id);
    const expiry = async () => (await heldRows(co.id))[0]!.expiresAt.getTime();
    const opened = await expiry();
    // A lease taking calls: its draw leaves expires_at as it is (no indexed column changes).
    expect(await bill(first, co.id, 0.5 * OT)).toBe("drawn");
    expect(await expiry()).toBe(opened);
    // Near its end, a draw gives it LEASE_TTL_S again.
    await db.execute(
      sql`update reservations set expires_at = now() + make_interval(secs => ${DRAW_EXTENDS_BELOW_S - 5}) where id = ${first.lease!.id}`,
    );
    const before = await expiry();
    expect(await bill(second, co.id, 0.5 * OT)).toBe("drawn");
    expect(await expiry()).toBeGreaterThan(before + 4_000);
  });

  it("a draw that finds its lease gone (released by the reconciler) is billed from the balance, never below zero", async () => {
    const co = await makeCompany(db, { creditsOt: 50 });
    const h = await holdCredit(co.id, 10 * OT);
    await db.execute(sql`
      with r as (update reservations set status = 'released' where id = ${h.lease!.id} returning company_id, amount_micro)
      update companies co set reserved_micro = co.reserved_micro - r.amount_micro from r where co.id = r.company_id`);
    expect(await bill(h, co.id, 4 * OT)).toBe("charged");
    expect(await getBalance(db, { companyId: co.id })).toEqual({ balanceMicro: 46 * OT, reservedMicro: 0 });
  });
});
