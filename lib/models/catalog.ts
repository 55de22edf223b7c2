import "server-only";
import { eq } from "drizzle-orm";
import { db } from "@/db/client";
import { modelOverrides, models, type Model, type ModelOverride } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation, registerCache } from "@/lib/cache/invalidation";

/**
 * The system catalog changes only at start (catalog file sync), so each process keeps it in
 * memory and re-reads it every few minutes. Per-company overrides are cached per company and
 * evicted everywhere by NOTIFY when a company changes them.
 */
const CATALOG_TTL_MS = 5 * 60_000;
let catalog: { bySlug: Map<string, Model>; list: Model[]; at: number } | undefined;
let loading: Promise<void> | undefined;

export async function catalogModels(): Promise<{ bySlug: Map<string, Model>; list: Model[] }> {
  if (!catalog || Date.now() - catalog.at > CATALOG_TTL_MS) {
    loading ??= db
      .select()
      .from(models)
      .orderBy(models.providerGroup, models.slug)
      .then((list) => {
        catalog = { bySlug: new Map(list.map((m) => [m.slug, m])), list, at: Date.now() };
      })
      .finally(() => {
        loading = undefined;
      });
    await loading;
  }
  return catalog!;
}

const OVERRIDES_TTL_MS = 60_000;
const TOPIC = "model_overrides";
const overrides = new Map<string, { bySlug: Map<string, ModelOverride>; at: number }>();
const overridesLive = registerCache(TOPIC, (companyId) => overrides.delete(companyId), () => overrides.clear());

export async function companyOverrides(companyId: string): Promise<Map<string, ModelOverride>> {
  const live = overridesLive();
  const hit = overrides.get(companyId);
  if (live && hit && Date.now() - hit.at < OVERRIDES_TTL_MS) return hit.bySlug;
  const rows = await db.select().from(modelOverrides).where(eq(modelOverrides.companyId, companyId));
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  if (live) overrides.set(companyId, { bySlug, at: Date.now() });
  return bySlug;
}

export async function announceOverridesChanged(conn: DbOrTx, companyId: string): Promise<void> {
  await publishInvalidation(conn, TOPIC, companyId);
}
