import type { PanelModel } from "./api";

export const LOCAL_GROUP = "local";

interface GroupInfo {
  label: string;
  description: string;
}

/** Display names and blurbs of the catalog's provider groups; a group added later shows its id. */
const GROUPS: Record<string, GroupInfo> = {
  openai: { label: "OpenAI", description: "GPT and o-series models, straight from OpenAI." },
  openrouter: { label: "OpenRouter", description: "Models of many vendors through OpenRouter (slugs or-…), at its pass-through prices." },
  google: { label: "Google", description: "Gemini models through Google's OpenAI-compatible API." },
  anthropic: { label: "Anthropic", description: "Claude models straight from Anthropic." },
  mistral: { label: "Mistral", description: "Mistral and Codestral models from Mistral AI." },
  deepseek: { label: "DeepSeek", description: "DeepSeek chat and reasoning models." },
  [LOCAL_GROUP]: {
    label: "Local",
    description: "Offline development models: deterministic answers with no key and no network, for development and tests. Billed at their listed prices.",
  },
};

/** The catalog file's order; unknown groups follow alphabetically, the offline group comes last. */
const ORDER = ["openai", "openrouter", "google", "anthropic", "mistral", "deepseek"];

export function groupInfo(id: string): GroupInfo {
  return GROUPS[id] ?? { label: id, description: `Models of the ${id} provider group.` };
}

export interface ModelGroup extends GroupInfo {
  id: string;
  models: PanelModel[];
  /** Whether the gateway has an API key for this group (the offline group needs none). */
  configured: boolean;
}

function rank(id: string): number {
  if (id === LOCAL_GROUP) return Number.MAX_SAFE_INTEGER;
  const i = ORDER.indexOf(id);
  return i === -1 ? ORDER.length : i;
}

/** Models by provider group, groups in display order, recommended models first within a group. */
export function groupModels(models: PanelModel[]): ModelGroup[] {
  const byGroup = new Map<string, PanelModel[]>();
  for (const m of models) byGroup.set(m.owned_by, [...(byGroup.get(m.owned_by) ?? []), m]);
  return [...byGroup.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([id, list]) => ({
      id,
      ...groupInfo(id),
      // Stable sort: the API's (alphabetical) order is kept among equals.
      models: [...list].sort((a, b) => Number(b.recommended) - Number(a.recommended)),
      configured: list.some((m) => m.provider_configured),
    }));
}
