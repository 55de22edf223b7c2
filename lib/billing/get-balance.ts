import "server-only";
import { eq } from "drizzle-orm";
import { companies } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";

export async function getBalance(
  db: DbOrTx,
  args: { companyId: string },
): Promise<{ balanceMicro: number; reservedMicro: number }> {
  const [row] = await db
    .select({ balanceMicro: companies.balanceMicro, reservedMicro: companies.reservedMicro })
    .from(companies)
    .where(eq(companies.id, args.companyId))
    .limit(1);
  if (!row) throw notFound("company");
  return row;
}
