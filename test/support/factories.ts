import "server-only";
import { SCOPES, type Scope } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { grantCredits, otToMicro } from "@/lib/billing";
import { createCompany } from "@/lib/companies";
import { createKey } from "@/lib/keys";
import { createUser } from "@/lib/users";
import { randomBase62 } from "@/lib/ids";

/** Test data builders: every suite makes its own company, so suites never share rows. */
export async function makeCompany(db: DbOrTx, args: { name?: string; creditsOt?: number } = {}) {
  const company = await createCompany(db, { name: args.name ?? `Test Co ${randomBase62(6)}` });
  if (args.creditsOt) {
    await grantCredits(db, { companyId: company.id, amountMicro: otToMicro(args.creditsOt), entry: { source: "test" } });
  }
  return company;
}

export async function makeKey(
  db: DbOrTx,
  args: { companyId: string; scopes?: Scope[]; rateLimitPerMinute?: number; expiresAt?: Date | null; name?: string },
) {
  return createKey(db, {
    companyId: args.companyId,
    name: args.name ?? "test key",
    scopes: args.scopes ?? [...SCOPES],
    rateLimitPerMinute: args.rateLimitPerMinute ?? 10_000,
    expiresAt: args.expiresAt ?? null,
  });
}

export async function makeUser(db: DbOrTx, args: { companyId: string; email?: string; password?: string }) {
  const password = args.password ?? `pw-${randomBase62(12)}`;
  const user = await createUser(db, { companyId: args.companyId, email: args.email ?? `u-${randomBase62(8)}@example.test`, password });
  return { user, password };
}
