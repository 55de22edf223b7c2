import type { LedgerEntry, UsageEvent } from "@/db/schema";
import { toUnix } from "@/lib/time";
import { microToOt } from "./money";

/** CONTRACT 5.8 ledger entry. */
export function toPublicLedgerEntry(e: LedgerEntry) {
  return {
    id: e.id,
    object: "ledger.entry" as const,
    kind: e.kind,
    source: e.source,
    amount_ot: microToOt(e.amountMicro),
    balance_after_ot: microToOt(e.balanceAfterMicro),
    model: e.model,
    prompt_tokens: e.promptTokens,
    completion_tokens: e.completionTokens,
    reference_id: e.referenceId,
    created_at: toUnix(e.createdAt),
    metadata: e.metadata,
  };
}

/** CONTRACT 5.8 response of POST /v1/usage. */
export function toPublicUsageEvent(e: UsageEvent) {
  return {
    id: e.id,
    object: "usage.event" as const,
    source: e.source,
    duration_s: e.durationS,
    direction: e.direction,
    cost_ot: microToOt(e.costMicro),
    balance_ot: microToOt(e.balanceAfterMicro),
    metadata: e.metadata,
    created_at: toUnix(e.createdAt),
  };
}
