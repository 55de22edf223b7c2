import type { GuardrailAction, GuardrailMatchType, GuardrailStage } from "@/db/enums";
import type { PublicGuardrail } from "@/lib/guardrails/to-public-guardrail";
import type { GuardrailTrial } from "@/lib/guardrails/try-guardrails";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type { GuardrailTrial, PublicGuardrail };
export type GuardrailPage = ListPage<PublicGuardrail>;

/** One page holds every rule a company realistically keeps; the API's maximum. */
export const GUARDRAILS_PAGE_SIZE = 100;

export interface CreateGuardrailBody {
  name: string;
  stage: GuardrailStage;
  match: { type: GuardrailMatchType; pattern: string };
  action: GuardrailAction;
  is_active?: boolean;
}

export function fetchGuardrails(): Promise<GuardrailPage> {
  return fetchJson<GuardrailPage>(`/api/panel/guardrails?limit=${GUARDRAILS_PAGE_SIZE}&order=asc`);
}

export function createGuardrailRequest(body: CreateGuardrailBody): Promise<PublicGuardrail> {
  return fetchJson<PublicGuardrail>("/api/panel/guardrails", { method: "POST", body: JSON.stringify(body) });
}

export function setGuardrailActiveRequest(id: string, isActive: boolean): Promise<PublicGuardrail> {
  return fetchJson<PublicGuardrail>(`/api/panel/guardrails/${encodeURIComponent(id)}`, {
    method: "PATCH",
    body: JSON.stringify({ is_active: isActive }),
  });
}

export function deleteGuardrailRequest(id: string): Promise<{ id: string; deleted: true }> {
  return fetchJson(`/api/panel/guardrails/${encodeURIComponent(id)}`, { method: "DELETE" });
}

export function tryGuardrailsRequest(body: { stage: GuardrailStage; text: string }): Promise<GuardrailTrial> {
  return fetchJson<GuardrailTrial>("/api/panel/guardrails/try", { method: "POST", body: JSON.stringify(body) });
}
