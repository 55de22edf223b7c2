import { AppError } from "@/lib/errors";
import type { EffectiveModel } from "@/lib/models/effective-model";
import { MODEL_KIND, modelKind } from "@/lib/models/model-kind";

/** Anthropic's model object (https://docs.anthropic.com/en/api/models): `created_at` is RFC 3339. */
export function toAnthropicModel(e: EffectiveModel) {
  return {
    type: "model" as const,
    id: e.model.slug,
    display_name: e.model.slug,
    created_at: e.model.createdAt.toISOString(),
  };
}

/** Anthropic's list paging (chat models only: embedding slugs cannot answer a message): `limit` (1–1000, default 20), `after_id` or `before_id`. */
export function toAnthropicModelList(models: EffectiveModel[], query: URLSearchParams) {
  const limit = Number(query.get("limit") ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new AppError("invalid_request", "limit: must be an integer from 1 to 1000", { param: "limit" });
  const all = models.filter((e) => modelKind(e.model.slug) === MODEL_KIND.chat).map(toAnthropicModel);
  const after = query.get("after_id");
  const before = query.get("before_id");
  let page: typeof all;
  let hasMore: boolean;
  if (before) {
    const end = all.findIndex((m) => m.id === before);
    const stop = end < 0 ? 0 : end;
    page = all.slice(Math.max(0, stop - limit), stop);
    hasMore = stop - limit > 0;
  } else {
    const start = after ? all.findIndex((m) => m.id === after) + 1 : 0;
    const from = after && start === 0 ? all.length : start;
    page = all.slice(from, from + limit);
    hasMore = from + limit < all.length;
  }
  return { data: page, has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
}
