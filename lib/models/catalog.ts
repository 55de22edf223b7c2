import "server-only";
import { eq } from "drizzle-orm";
import { db } from "@/db/client";
import { modelOverrides, modelPrices, models, type Model, type ModelOverride, type ModelPrice } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation, registerCache } from "@/lib/cache/invalidation";

/**
 * The system catalog only changes at start, so it is re-read every few minutes; per-company
 * overrides and prices are cached per company and evicted everywhere by NOTIFY.
 */
const CATALOG_TTL_MS = 5 * 60_000;
let catalog: { bySlug: Map<string, Model>; list: Model[]; at: number } | undefined;
let loading: Promise<void> | undefined;

/** The catalog when loaded and fresh, else undefined: lets the hot path skip even a promise. */
export function peekCatalogModels(): { bySlug: Map<string, Model>; list: Model[] } | undefined {
  return catalog && Date.now() - catalog.at <= CATALOG_TTL_MS ? catalog : undefined;
}

export async function catalogModels(): Promise<{ bySlug: Map<string, Model>; list: Model[] }> {
  if (!peekCatalogModels()) {
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

/** What one company changes in the catalog: its admin's overrides and the operator's prices for it. */
export interface CompanyModelSettings {
  overrides: Map<string, ModelOverride>;
  prices: Map<string, ModelPrice>;
}

const SETTINGS_TTL_MS = 60_000;
const TOPIC = "company_models";
const settings = new Map<string, { value: CompanyModelSettings; at: number }>();
/** Bumped by every invalidation: a read that started before one must not be cached, as it may predate the change. */
let generation = 0;
const settingsLive = registerCache(
  TOPIC,
  (companyId) => {
    settings.delete(companyId);
    generation++;
  },
  () => {
    settings.clear();
    generation++;
  },
);

/** The company's cached settings when fresh, else undefined: lets the hot path skip even a promise. */
export function peekCompanyModelSettings(companyId: string): CompanyModelSettings | undefined {
  if (!settingsLive()) return undefined;
  const hit = settings.get(companyId);
  return hit && Date.now() - hit.at < SETTINGS_TTL_MS ? hit.value : undefined;
}

export async function companyModelSettings(companyId: string): Promise<CompanyModelSettings> {
  const cached = peekCompanyModelSettings(companyId);
  if (cached) return cached;
  const live = settingsLive();
  const readAt = generation;
  const [overrideRows, priceRows] = await Promise.all([
    db.select().from(modelOverrides).where(eq(modelOverrides.companyId, companyId)),
    db.select().from(modelPrices).where(eq(modelPrices.companyId, companyId)),
  ]);
  const value = {
    overrides: new Map(overrideRows.map((r) => [r.slug, r])),
    prices: new Map(priceRows.map((r) => [r.slug, r])),
  };
  if (live && generation === readAt) settings.set(companyId, { value, at: Date.now() });
  return value;
}

/** Evicts the company's settings in every process, when `conn`'s transaction commits (the CLI's included). */
export async function announceCompanyModelsChanged(conn: DbOrTx, companyId: string): Promise<void> {
  await publishInvalidation(conn, TOPIC, companyId);
}
