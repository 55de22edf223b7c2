import "server-only";
import { MODEL_STATUS } from "@/db/enums";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { ProviderGroupConfig } from "@/lib/providers/config";
import { providerGroup } from "./provider-groups";
import {
  catalogModels,
  companyModelSettings,
  peekCatalogModels,
  peekCompanyModelSettings,
  type CompanyModelSettings,
} from "./catalog";
import { effectiveModel, type EffectiveModel } from "./effective-model";
import { LOCAL_GROUP } from "./list-models";
import { MODEL_KIND, modelKind, type ModelKind } from "./model-kind";

export interface ResolvedModel extends EffectiveModel {
  slug: string;
  group: ProviderGroupConfig;
  /** Upstream ids to try in order: the model's own, then its declared fallbacks. */
  upstreamIds: string[];
}

const modelNotFound = (slug: string, param = "model") =>
  new AppError(
    "not_found",
    `The model '${slug}' does not exist or you do not have access to it. GET /v1/models lists the models you can use.`,
    {
      wireCode: "model_not_found",
      param,
    },
  );

/** A slug as GET /v1/models shows it (disabled slugs included). @throws 404 model_not_found */
export async function resolveVisibleModel(args: {
  companyId: string;
  slug: string;
  param?: string;
}): Promise<EffectiveModel> {
  const [catalog, company] = await Promise.all([catalogModels(), companyModelSettings(args.companyId)]);
  return visibleModelIn(catalog.bySlug, company, args);
}

function visibleModelIn(
  bySlug: Map<string, EffectiveModel["model"]>,
  company: CompanyModelSettings,
  args: { slug: string; param?: string },
): EffectiveModel {
  const model = bySlug.get(args.slug);
  if (!model || (model.providerGroup === LOCAL_GROUP && env.LOCAL_MODELS !== "1"))
    throw modelNotFound(args.slug, args.param);
  const eff = effectiveModel(model, company.overrides.get(args.slug), company.prices.get(args.slug));
  if (eff.hidden) throw modelNotFound(args.slug, args.param);
  return eff;
}

/** @throws 400 model_disabled naming the replacement (`claude-…` → its `or-…` slug), with `param`. */
export function refuseDisabled(eff: EffectiveModel, slug: string, param = "model"): void {
  if (eff.status !== MODEL_STATUS.disabled) return;
  const instead = eff.model.replacement ? ` Use '${eff.model.replacement}' instead.` : "";
  throw new AppError("invalid_request", `The model '${slug}' is temporarily disabled.${instead}`, {
    wireCode: "model_disabled",
    param,
  });
}

/** @throws 400 model_not_supported when the slug is of another kind than the endpoint serves. */
export function refuseOtherKind(slug: string, kind: ModelKind, param = "model"): void {
  const actual = modelKind(slug);
  if (actual === kind) return;
  const message =
    actual === MODEL_KIND.embedding
      ? `The model '${slug}' is an embedding model and cannot chat: use it with POST /v1/embeddings.`
      : `The model '${slug}' is a chat model, not an embedding model. GET /v1/models lists the embedding models (type "embedding").`;
  throw new AppError("invalid_request", message, { wireCode: "model_not_supported", param });
}

/**
 * A requested slug as this company sees the catalog, for an endpoint serving `kind` (chat unless
 * said).
 * @throws 404 model_not_found (unknown or hidden); 400 for a disabled slug, naming its replacement;
 * 400 for a slug of another kind; 400 when the slug's provider group has no API key.
 */
export async function resolveModel(args: {
  companyId: string;
  slug: string;
  kind?: ModelKind;
}): Promise<ResolvedModel> {
  return usableModel(await resolveVisibleModel(args), args);
}

/**
 * resolveModel without waiting when the catalog and the company's settings are cached (the usual
 * case), else undefined. Throws as resolveModel does.
 */
export function peekResolvedModel(args: {
  companyId: string;
  slug: string;
  kind?: ModelKind;
}): ResolvedModel | undefined {
  const catalog = peekCatalogModels();
  const company = catalog && peekCompanyModelSettings(args.companyId);
  if (!catalog || !company) return undefined;
  return usableModel(visibleModelIn(catalog.bySlug, company, args), args);
}

function usableModel(eff: EffectiveModel, args: { slug: string; kind?: ModelKind }): ResolvedModel {
  const { slug } = args;
  const model = eff.model;
  refuseDisabled(eff, slug);
  refuseOtherKind(slug, args.kind ?? MODEL_KIND.chat);
  const group = providerGroup(model.providerGroup);
  if (!group) throw modelNotFound(slug);
  if (group.protocol !== "local" && !group.apiKey) {
    throw new AppError(
      "invalid_request",
      `The provider group '${group.id}' of model '${slug}' is not configured: set ${group.keyVar} on the gateway.`,
      { wireCode: "provider_not_configured", param: "model" },
    );
  }
  return { ...eff, slug, group, upstreamIds: [model.upstreamId, ...model.fallbacks] };
}
