import { spawnSync } from "node:child_process";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import { makeCompany } from "../support/factories";
import { reservations } from "@/db/schema";
import { endHold, getBalance, holdCredit, releaseAllLeases, releaseLeasesOfGoneOwners } from "@/lib/billing";
import { currentLeaseOwner, formatLeaseOwner, type LeaseOwner } from "@/lib/billing/lease-owner";
import { newId } from "@/lib/ids";
import { serverInstance } from "@/lib/process-channels.mjs";
import { withRollback } from "../support/with-rollback";

const OT = 1_000_000;

/** A held lease of `owner` (null: none), with its amount added to reserved_micro as openLease does. */
async function lease(tx: Tx, companyId: string, amountMicro: number, owner: LeaseOwner | null) {
  const id = newId("reservation");
  await tx.execute(sql`
    WITH c AS (UPDATE companies SET reserved_micro = reserved_micro + ${amountMicro} WHERE id = ${companyId} RETURNING id)
    INSERT INTO reservations (id, company_id, amount_micro, reference_id, owner, expires_at)
    SELECT ${id}, c.id, ${amountMicro}, 'lease', ${owner ? formatLeaseOwner(owner) : null}, now() + interval '2 minutes' FROM c`);
  return id;
}

const statusOf = async (tx: Tx, id: string) =>
  (await tx.select().from(reservations).where(eq(reservations.id, id)))[0]!.status;

describe("leases of a process that is gone", () => {
  it("are released at once, with reserved_micro fixed; a live owner's, ours and unowned holds stay", async () => {
    const me = currentLeaseOwner();
    const { pid: exited } = spawnSync(process.execPath, ["-e", ""]);
    await withRollback(async (tx) => {
      const co = await makeCompany(tx, { creditsOt: 10 });
      const deadA = await lease(tx, co.id, 3 * OT, { ...me, pid: exited!, startTime: "", boot: "DeadBoot" });
      const deadB = await lease(tx, co.id, 1 * OT, { ...me, pid: exited!, startTime: "", boot: "DeadBoot" });
      // The test runner that forked this worker is alive.
      const parent = await lease(tx, co.id, 2 * OT, { ...me, pid: process.ppid, startTime: "", boot: "ParentBoot" });
      const ours = await lease(tx, co.id, 1 * OT, me);
      const unowned = await lease(tx, co.id, 1 * OT, null);
      expect(await getBalance(tx, { companyId: co.id })).toEqual({ balanceMicro: 10 * OT, reservedMicro: 8 * OT });

      expect(await releaseLeasesOfGoneOwners(tx)).toBeGreaterThanOrEqual(2);
      expect(await statusOf(tx, deadA)).toBe("released");
      expect(await statusOf(tx, deadB)).toBe("released");
      for (const id of [parent, ours, unowned]) expect(await statusOf(tx, id)).toBe("held");
      expect(await getBalance(tx, { companyId: co.id })).toEqual({ balanceMicro: 10 * OT, reservedMicro: 4 * OT });
      // Idempotent: nothing of this company is released twice.
      await releaseLeasesOfGoneOwners(tx);
      expect(await getBalance(tx, { companyId: co.id })).toEqual({ balanceMicro: 10 * OT, reservedMicro: 4 * OT });
    });
  });

  it("a server restarted in a new container on the same host name, address, port and slot releases its predecessor's", async () => {
    serverInstance.set({ address: "0.0.0.0", port: 39_999, slot: 0 });
    try {
      const me = currentLeaseOwner();
      expect(me.instance).toBe("0.0.0.0:39999:0");
      await withRollback(async (tx) => {
        const co = await makeCompany(tx, { creditsOt: 10 });
        const before = { ...me, pidSpace: "another-boot.1", pid: 1, boot: "OldContainer" };
        const predecessor = await lease(tx, co.id, 5 * OT, before);
        const replica = await lease(tx, co.id, 2 * OT, { ...before, instance: "0.0.0.0:39999:1", boot: "Replica" });
        const elsewhere = await lease(tx, co.id, 2 * OT, { ...before, host: "another-host", boot: "Elsewhere" });
        expect(await releaseLeasesOfGoneOwners(tx)).toBeGreaterThanOrEqual(1);
        expect(await statusOf(tx, predecessor)).toBe("released");
        expect(await statusOf(tx, replica)).toBe("held");
        expect(await statusOf(tx, elsewhere)).toBe("held");
        expect((await getBalance(tx, { companyId: co.id })).reservedMicro).toBe(4 * OT);
      });
    } finally {
      serverInstance.clear();
      currentLeaseOwner().instance = "";
    }
  });

  it("a lease this process opens names it as owner", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const hold = await holdCredit(co.id, 1 * OT);
    const [row] = await db.select().from(reservations).where(eq(reservations.id, hold.lease!.id));
    expect(row!.owner).toBe(formatLeaseOwner(currentLeaseOwner()));
    // Not gone in its own eyes.
    await releaseLeasesOfGoneOwners(db);
    expect((await db.select().from(reservations).where(eq(reservations.id, hold.lease!.id)))[0]!.status).toBe("held");
    endHold(hold, 0);
    await releaseAllLeases();
  });
});
