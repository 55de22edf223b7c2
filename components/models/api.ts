import type { ModelOverrideInput } from "@/lib/models/set-override";
import type { PanelModel } from "@/lib/models/to-panel-model";
import { fetchJson } from "@/components/panel/fetch-json";

export type { PanelModel };

/** GET /api/panel/models: the whole catalog as the company sees it, hidden slugs included. */
export interface ModelList {
  object: "list";
  data: PanelModel[];
}

/** PUT body: `hidden` and/or `enabled` (`null` goes back to the catalog status). Prices are the operator's: a price field is a 400. */
export type ModelOverrideBody = ModelOverrideInput;

export function fetchModels(): Promise<ModelList> {
  return fetchJson<ModelList>("/api/panel/models");
}

export function updateModelRequest(slug: string, body: ModelOverrideBody): Promise<{ ok: true }> {
  return fetchJson(`/api/panel/models/${encodeURIComponent(slug)}`, { method: "PUT", body: JSON.stringify(body) });
}

export function resetModelRequest(slug: string): Promise<{ ok: true }> {
  return fetchJson(`/api/panel/models/${encodeURIComponent(slug)}`, { method: "DELETE" });
}
