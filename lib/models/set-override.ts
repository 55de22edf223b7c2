import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { modelOverrides, type ModelOverride } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { otToMicro } from "@/lib/billing/money";
import { announceOverridesChanged, catalogModels } from "./catalog";
import { AppError } from "@/lib/errors";

const PricePerM = z.number().min(0).max(1_000_000).nullable();

/** Panel body: any subset; a null price returns to the catalog price. Prices in O₮ per 1M tokens. */
export const ModelOverrideInput = z.strictObject({
  hidden: z.boolean().optional(),
  enabled: z.boolean().nullable().optional(),
  input_per_m: PricePerM.optional(),
  cached_input_per_m: PricePerM.optional(),
  output_per_m: PricePerM.optional(),
});
export type ModelOverrideInput = z.infer<typeof ModelOverrideInput>;

const micro = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : otToMicro(v));

/**
 * Creates or updates a company's override of one catalog slug, and evicts every process's cache.
 * @throws not_found for a slug that is not in the catalog.
 */
export async function setModelOverride(db: DbOrTx, args: { companyId: string; slug: string; input: ModelOverrideInput }): Promise<ModelOverride> {
  const { bySlug } = await catalogModels();
  if (!bySlug.has(args.slug)) throw new AppError("not_found", `No model '${args.slug}' in the catalog`, { wireCode: "model_not_found" });
  const changes = {
    hidden: args.input.hidden,
    enabled: args.input.enabled,
    inputMicroPerM: micro(args.input.input_per_m),
    cachedInputMicroPerM: micro(args.input.cached_input_per_m),
    outputMicroPerM: micro(args.input.output_per_m),
  };
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const [row] = await db
    .insert(modelOverrides)
    .values({ companyId: args.companyId, slug: args.slug, ...set })
    .onConflictDoUpdate({ target: [modelOverrides.companyId, modelOverrides.slug], set: { ...set, updatedAt: new Date() } })
    .returning();
  await announceOverridesChanged(db, args.companyId);
  return row!;
}

/** Drops a company's override of a slug (back to the catalog). Idempotent. */
export async function clearModelOverride(db: DbOrTx, args: { companyId: string; slug: string }): Promise<void> {
  await db.delete(modelOverrides).where(and(eq(modelOverrides.companyId, args.companyId), eq(modelOverrides.slug, args.slug)));
  await announceOverridesChanged(db, args.companyId);
}
