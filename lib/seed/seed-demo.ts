import "server-only";
import { sql } from "@/db/sql";
import { SCOPES } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { grantCredits, otToMicro } from "@/lib/billing";
import { createCompany } from "@/lib/companies";
import { createKey } from "@/lib/keys";

const DEMO_CREDITS_OT = 10_000;
const SEED_LOCK_ID = 727_002;

export interface DemoSeed {
  companyId: string;
  key: string;
}

/**
 * On an empty database, creates the demo company with credits and an all-scopes key, and returns
 * the key for `npm start` to print once; null when any company exists. No panel user: the operator
 * creates the first one through the setup link (lib/setup). Concurrent starts take turns on an
 * advisory lock.
 */
export async function seedDemoIfEmpty(db: DbOrTx): Promise<DemoSeed | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_ID})`);
    const [{ n }] = (await tx.execute(sql`select count(*)::int as n from companies`)) as unknown as [{ n: number }];
    if (n > 0) return null;
    const company = await createCompany(tx, { name: "Demo Company" });
    await grantCredits(tx, {
      companyId: company.id,
      amountMicro: otToMicro(DEMO_CREDITS_OT),
      entry: { source: "seed", metadata: { note: "demo credits" } },
    });
    const { secret } = await createKey(tx, {
      companyId: company.id,
      name: "Demo key (all scopes)",
      scopes: [...SCOPES],
    });
    return { companyId: company.id, key: secret };
  });
}
