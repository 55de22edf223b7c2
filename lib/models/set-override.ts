import "server-only";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { modelOverrides, type ModelOverride } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { announceCompanyModelsChanged, catalogModels } from "./catalog";
import { AppError } from "@/lib/errors";

// Prices are the operator's (CONTRACT 7): a price field in a panel body is refused, not ignored, so
// the client learns.
const OperatorOnly = z
  .never({
    error:
      "prices are set by the gateway operator (CLI `model price`); a company admin can hide, show or enable a model, not price it",
  })
  .optional();

/** Panel body: any subset. `enabled: null` returns to the catalog's status. */
export const ModelOverrideInput = z.strictObject({
  hidden: z.boolean().optional(),
  enabled: z.boolean().nullable().optional(),
  input_per_m: OperatorOnly,
  cached_input_per_m: OperatorOnly,
  output_per_m: OperatorOnly,
});
export type ModelOverrideInput = Pick<z.infer<typeof ModelOverrideInput>, "hidden" | "enabled">;

/**
 * Creates or updates a company's override of one catalog slug, and evicts every process's cache.
 * @throws not_found for a slug that is not in the catalog.
 */
export async function setModelOverride(
  db: DbOrTx,
  args: { companyId: string; slug: string; input: ModelOverrideInput },
): Promise<ModelOverride> {
  const { bySlug } = await catalogModels();
  if (!bySlug.has(args.slug))
    throw new AppError("not_found", `No model '${args.slug}' in the catalog`, { wireCode: "model_not_found" });
  const changes = { hidden: args.input.hidden, enabled: args.input.enabled };
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const [row] = await db
    .insert(modelOverrides)
    .values({ companyId: args.companyId, slug: args.slug, ...set })
    .onConflictDoUpdate({
      target: [modelOverrides.companyId, modelOverrides.slug],
      set: { ...set, updatedAt: new Date() },
    })
    .returning();
  await announceCompanyModelsChanged(db, args.companyId);
  return row!;
}

/** Drops a company's override of a slug (back to the catalog's visibility and status; the operator's price stays). Idempotent. */
export async function clearModelOverride(db: DbOrTx, args: { companyId: string; slug: string }): Promise<void> {
  await db
    .delete(modelOverrides)
    .where(and(eq(modelOverrides.companyId, args.companyId), eq(modelOverrides.slug, args.slug)));
  await announceCompanyModelsChanged(db, args.companyId);
}
