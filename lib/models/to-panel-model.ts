import "server-only";
import { readCatalog } from "@/db/catalog/sync";
import { PROVIDER_PROTOCOL } from "@/db/enums";
import { microToOt } from "@/lib/billing/money";
import { providerGroup } from "./provider-groups";
import type { EffectiveModel } from "./effective-model";
import { toPublicModel } from "./to-public-model";

let positions: Map<string, number> | undefined;

/** A slug's place in the catalog file, whose order is curated (groups, then recommended and newest first). */
function catalogPosition(slug: string): number | null {
  positions ??= new Map(
    readCatalog()
      .groups.flatMap((g) => g.models.map((m) => m.slug))
      .map((s, i) => [s, i]),
  );
  return positions.get(slug) ?? null;
}

/**
 * The panel's view of a model: the public object with this company's overrides and prices applied,
 * plus what the catalog says without them (so the panel can show the operator's price for the
 * company next to the list price, read-only, and know a slug is disabled upstream even after the
 * company enabled it), and whether the gateway has a key for the provider group (calls to an
 * unconfigured group fail with 400).
 */
export function toPanelModel(e: EffectiveModel) {
  const m = e.model;
  const group = providerGroup(m.providerGroup);
  return {
    ...toPublicModel(e),
    hidden: e.hidden,
    overridden: e.overridden,
    /** The operator set this company's price of the slug; only the operator can change or reset it. */
    operator_priced: e.operatorPriced,
    catalog: {
      status: m.status,
      /** null: the slug left the catalog file (it stays, deprecated). */
      position: catalogPosition(m.slug),
      pricing: {
        input: microToOt(m.inputMicroPerM),
        cached_input: microToOt(m.cachedInputMicroPerM),
        output: microToOt(m.outputMicroPerM),
      },
    },
    provider_configured: group !== undefined && (group.protocol === PROVIDER_PROTOCOL.local || Boolean(group.apiKey)),
  };
}

export type PanelModel = ReturnType<typeof toPanelModel>;
