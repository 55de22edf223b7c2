import "server-only";
import { sql } from "@/db/sql";
import type { User } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { getCompany } from "@/lib/companies";
import { AppError } from "@/lib/errors";
import { seedDemoIfEmpty } from "@/lib/seed/seed-demo";
import { createUser } from "@/lib/users";
import { isSetupPending } from "./is-setup-pending";
import { takeSetupLock } from "./setup-lock";

export interface FirstAdmin {
  companyId: string;
  user: User;
  /** The demo company's all-scopes key, when this call made the company (shown once). */
  key: string | null;
}

/** The company the first admin joins: the one named, else the demo company made now on an empty database, else the oldest (as the setup link's). */
async function firstCompany(tx: DbOrTx, companyId: string | undefined): Promise<{ id: string; key: string | null }> {
  if (companyId) return { id: (await getCompany(tx, { companyId })).id, key: null };
  const seeded = await seedDemoIfEmpty(tx);
  if (seeded) return { id: seeded.companyId, key: seeded.key };
  const [oldest] = (await tx.execute(sql`SELECT id FROM companies ORDER BY created_at, id LIMIT 1`)) as unknown as {
    id: string;
  }[];
  return { id: oldest!.id, key: null };
}

/**
 * The first run where no browser reaches the setup link (it answers loopback clients only, and a
 * container's published port is not loopback): what `npm start` seeds and the link completes, in
 * one transaction. The first panel user joins `companyId`, else the demo company made now on an
 * empty database (its key returned once), else the oldest company.
 * @throws conflict when a panel user exists (setup is done); not_found for an unknown `companyId`.
 */
export async function setupFirstAdmin(
  db: DbOrTx,
  args: { email: string; password: string; companyId?: string },
): Promise<FirstAdmin> {
  return db.transaction(async (tx) => {
    await takeSetupLock(tx);
    if (!(await isSetupPending(tx)))
      throw new AppError("conflict", "Setup is already done: sign in at /login, or add users with `user create`.");
    const company = await firstCompany(tx, args.companyId);
    const user = await createUser(tx, { companyId: company.id, email: args.email, password: args.password });
    return { companyId: company.id, user, key: company.key };
  });
}
