import "server-only";
import { asc, isNull } from "drizzle-orm";
import { companies, setupTokens } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId, randomBase62 } from "@/lib/ids";
import { isSetupPending } from "./is-setup-pending";
import { takeSetupLock } from "./setup-lock";
import { setupTokenHash } from "./token-hash";

export const SETUP_TOKEN_TTL_MS = 60 * 60 * 1000;

export interface IssuedSetupToken {
  token: string;
  companyId: string;
  expiresAt: Date;
}

/**
 * While setup is pending, a fresh token for the oldest company; the unused ones issued before stop
 * working. Null once a panel user exists, or when there is no company to set up.
 */
export async function issueSetupToken(
  db: DbOrTx,
  args: { now?: Date; ttlMs?: number } = {},
): Promise<IssuedSetupToken | null> {
  return db.transaction(async (tx) => {
    await takeSetupLock(tx);
    if (!(await isSetupPending(tx))) return null;
    const [company] = await tx
      .select({ id: companies.id })
      .from(companies)
      .orderBy(asc(companies.createdAt), asc(companies.id))
      .limit(1);
    if (!company) return null;
    await tx.delete(setupTokens).where(isNull(setupTokens.consumedAt));
    const token = randomBase62(32);
    const expiresAt = new Date((args.now ?? new Date()).getTime() + (args.ttlMs ?? SETUP_TOKEN_TTL_MS));
    await tx
      .insert(setupTokens)
      .values({ id: newId("setupToken"), companyId: company.id, tokenHash: setupTokenHash(token), expiresAt });
    return { token, companyId: company.id, expiresAt };
  });
}
