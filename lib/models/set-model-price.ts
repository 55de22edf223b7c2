import "server-only";
import { z } from "zod";
import { modelPrices } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { otToMicro } from "@/lib/billing/money";
import { getCompany } from "@/lib/companies";
import { announceCompanyModelsChanged } from "./catalog";
import { getCatalogModel } from "./internal";
import type { Prices } from "./pricing";

/** O₮ per 1M tokens; the bound keeps tokens × price exact and far above any real list price. */
export const OtPerM = z.number().finite().min(0).max(1_000_000);

export const ModelPriceInput = z.object({ input: OtPerM, cached_input: OtPerM, output: OtPerM });
export type ModelPriceInput = z.infer<typeof ModelPriceInput>;

/**
 * The operator's price of one slug for one company (CLI `model price`), in every process. No panel
 * or API route calls it.
 * @throws not_found for an unknown company or a slug not in the catalog.
 */
export async function setModelPrice(
  db: DbOrTx,
  args: { companyId: string; slug: string; prices: ModelPriceInput },
): Promise<Prices> {
  return db.transaction(async (tx) => {
    const company = await getCompany(tx, { companyId: args.companyId });
    const model = await getCatalogModel(tx, { slug: args.slug });
    const prices = {
      inputMicroPerM: otToMicro(args.prices.input),
      cachedInputMicroPerM: otToMicro(args.prices.cached_input),
      outputMicroPerM: otToMicro(args.prices.output),
    };
    await tx
      .insert(modelPrices)
      .values({ companyId: company.id, slug: model.slug, ...prices })
      .onConflictDoUpdate({
        target: [modelPrices.companyId, modelPrices.slug],
        set: { ...prices, updatedAt: new Date() },
      });
    // Delivered when the transaction commits, so no process re-reads before the new price is visible.
    await announceCompanyModelsChanged(tx, company.id);
    return prices;
  });
}
