import "server-only";
import { and, eq } from "drizzle-orm";
import { crmDeals, type CrmDeal } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

const dealNotFound = (id: string) =>
  new AppError("not_found", `No deal found with id '${id}'`, { wireCode: "deal_not_found", param: "input.deal_id" });

/**
 * The company's deal, locked until the transaction ends (concurrent moves of one deal queue here,
 * so each records the stage it really left).
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function lockDealInCompany(tx: DbOrTx, args: { companyId: string; dealId: string }): Promise<CrmDeal> {
  const [row] = await tx
    .select()
    .from(crmDeals)
    .where(and(eq(crmDeals.id, args.dealId), eq(crmDeals.companyId, args.companyId)))
    .for("update")
    .limit(1);
  if (!row) throw dealNotFound(args.dealId);
  return row;
}
