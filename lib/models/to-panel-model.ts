import "server-only";
import { readCatalog } from "@/db/catalog/sync";
import { MODEL_STATUS, PROVIDER_PROTOCOL } from "@/db/enums";
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
 * The panel's view of a model: this company's overrides and prices applied, the catalog's values
 * alongside (to show the list price and an upstream disable), and whether the provider group has a
 * key.
 */
export function toPanelModel(e: EffectiveModel) {
  const m = e.model;
  const group = providerGroup(m.providerGroup);
  const configured = group !== undefined && (group.protocol === PROVIDER_PROTOCOL.local || Boolean(group.apiKey));
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
    provider_configured: configured,
    /** The variable that holds the group's key (CONTRACT 2), to name it when missing; null for the offline group. */
    provider_key_var: group?.keyVar ?? null,
    /** Callable by this company now: its provider group has a key (or is offline) and the slug is not disabled. */
    usable: configured && e.status !== MODEL_STATUS.disabled,
  };
}

export type PanelModel = ReturnType<typeof toPanelModel>;
