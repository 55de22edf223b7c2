import "server-only";
import { and, eq } from "drizzle-orm";
import { modelPrices } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { getCompany } from "@/lib/companies";
import { announceCompanyModelsChanged } from "./catalog";
import { getCatalogModel } from "./internal";
import type { Prices } from "./pricing";

/**
 * Drops the operator's price of one slug for one company, returning the catalog price now in force.
 * Idempotent.
 * @throws not_found for an unknown company or a slug not in the catalog.
 */
export async function resetModelPrice(db: DbOrTx, args: { companyId: string; slug: string }): Promise<Prices> {
  return db.transaction(async (tx) => {
    const company = await getCompany(tx, { companyId: args.companyId });
    const model = await getCatalogModel(tx, { slug: args.slug });
    await tx.delete(modelPrices).where(and(eq(modelPrices.companyId, company.id), eq(modelPrices.slug, model.slug)));
    await announceCompanyModelsChanged(tx, company.id);
    return {
      inputMicroPerM: model.inputMicroPerM,
      cachedInputMicroPerM: model.cachedInputMicroPerM,
      outputMicroPerM: model.outputMicroPerM,
    };
  });
}
