import "server-only";
import { env } from "@/lib/env";
import { catalogModels, companyModelSettings } from "./catalog";
import { effectiveModel, type EffectiveModel } from "./effective-model";

export const LOCAL_GROUP = "local";

/** The catalog as the company sees it, at its prices (hidden slugs removed; the local group unless LOCAL_MODELS=0). */
export async function listModels(args: { companyId: string; includeHidden?: boolean }): Promise<EffectiveModel[]> {
  const [{ list }, company] = await Promise.all([catalogModels(), companyModelSettings(args.companyId)]);
  return list
    .filter((m) => env.LOCAL_MODELS === "1" || m.providerGroup !== LOCAL_GROUP)
    .map((m) => effectiveModel(m, company.overrides.get(m.slug), company.prices.get(m.slug)))
    .filter((e) => args.includeHidden || !e.hidden);
}
