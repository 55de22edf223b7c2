import type { CrmDeal } from "@/db/schema";
import { formatMinor } from "@/lib/sdk/money";
import { toUnix } from "@/lib/time";

/** A deal on the wire: amount as a two-decimal string, times as Unix seconds (CONTRACT 4). */
export function toPublicDeal(d: CrmDeal) {
  return {
    id: d.id,
    object: "crm.deal" as const,
    title: d.title,
    contact: d.contact,
    amount: formatMinor(d.amountMinor),
    currency: d.currency,
    stage: d.stage,
    created_at: toUnix(d.createdAt),
    created_by: d.createdBy,
    updated_at: toUnix(d.updatedAt),
    stage_changed_at: d.stageChangedAt ? toUnix(d.stageChangedAt) : null,
    stage_changed_by: d.stageChangedBy,
  };
}
