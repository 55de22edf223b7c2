import "server-only";
import { crmDeals, type CrmDeal } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { parseMinor } from "@/lib/sdk/money";
import type { CreateDealInput } from "./schemas";

export async function createDeal(
  db: DbOrTx,
  args: { companyId: string; actor: string; input: CreateDealInput },
): Promise<CrmDeal> {
  const { input } = args;
  const [row] = await db
    .insert(crmDeals)
    .values({
      id: newId("deal"),
      companyId: args.companyId,
      title: input.title,
      contact: input.contact,
      amountMinor: parseMinor(input.amount, "input.amount"),
      currency: input.currency,
      stage: input.stage,
      createdBy: args.actor,
    })
    .returning();
  return row!;
}
