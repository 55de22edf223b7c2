import type { PanelModel } from "./api";

export const LOCAL_GROUP = "local";

interface GroupInfo {
  label: string;
  description: string;
}

/** Display names and blurbs of the catalog's provider groups; a group added later shows its id. */
const GROUPS: Record<string, GroupInfo> = {
  openai: { label: "OpenAI", description: "GPT and o-series models, straight from OpenAI." },
  openrouter: {
    label: "OpenRouter",
    description: "Models of many vendors through OpenRouter (slugs or-…), at its pass-through prices.",
  },
  google: { label: "Google", description: "Gemini models through Google's OpenAI-compatible API." },
  anthropic: { label: "Anthropic", description: "Claude models straight from Anthropic." },
  mistral: { label: "Mistral", description: "Mistral and Codestral models from Mistral AI." },
  deepseek: { label: "DeepSeek", description: "DeepSeek chat and reasoning models." },
  [LOCAL_GROUP]: {
    label: "Local",
    description:
      "Offline development models: deterministic answers with no key and no network, for development and tests. Billed at their listed prices.",
  },
};

function groupInfo(id: string): GroupInfo {
  return GROUPS[id] ?? { label: id, description: `Models of the ${id} provider group.` };
}

export interface ModelGroup extends GroupInfo {
  id: string;
  models: PanelModel[];
  /** Whether the gateway has an API key for this group (the offline group needs none). */
  configured: boolean;
  /** The variable the operator sets for this group's key (`OPENAI_API_KEY`); null for the offline group. */
  keyVar: string | null;
}

/** Catalog order (slugs that left the catalog last, by id). */
function byCatalogOrder(a: PanelModel, b: PanelModel): number {
  const pa = a.catalog.position ?? Number.MAX_SAFE_INTEGER;
  const pb = b.catalog.position ?? Number.MAX_SAFE_INTEGER;
  return pa - pb || a.id.localeCompare(b.id);
}

/** Models by provider group, in the catalog's order (its groups, then its models); the offline group last. */
export function groupModels(models: PanelModel[]): ModelGroup[] {
  const byGroup = new Map<string, PanelModel[]>();
  for (const m of [...models].sort(byCatalogOrder)) byGroup.set(m.owned_by, [...(byGroup.get(m.owned_by) ?? []), m]);
  // Map order is insertion order: each group sits where its first model does.
  const groups = [...byGroup.entries()].map(([id, list]) => ({
    id,
    ...groupInfo(id),
    models: list,
    configured: list.some((m) => m.provider_configured),
    keyVar: list[0]?.provider_key_var ?? null,
  }));
  return [...groups.filter((g) => g.id !== LOCAL_GROUP), ...groups.filter((g) => g.id === LOCAL_GROUP)];
}
