import "server-only";
import { MODEL_STATUS } from "@/db/enums";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { ProviderGroupConfig } from "@/lib/providers/config";
import { providerGroup } from "./provider-groups";
import { catalogModels, companyModelSettings } from "./catalog";
import { effectiveModel, type EffectiveModel } from "./effective-model";
import { LOCAL_GROUP } from "./list-models";

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
  const [{ bySlug }, company] = await Promise.all([catalogModels(), companyModelSettings(args.companyId)]);
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

/**
 * A requested slug as this company sees the catalog.
 * @throws 404 model_not_found (unknown or hidden); 400 for a disabled slug, naming its replacement;
 * 400 when the slug's provider group has no API key.
 */
export async function resolveModel(args: { companyId: string; slug: string }): Promise<ResolvedModel> {
  const { slug } = args;
  const eff = await resolveVisibleModel(args);
  const model = eff.model;
  refuseDisabled(eff, slug);
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
