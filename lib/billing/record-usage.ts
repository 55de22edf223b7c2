import "server-only";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { LEDGER_KIND } from "@/db/enums";
import { usageEvents, type UsageEvent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { canonicalJson } from "./canonical-json";
import { isUniqueViolation } from "@/db/pg-errors";
import { charge } from "./charge";
import { usageCostMicro } from "./rates";
import { countBilled } from "@/lib/observability/metrics/record";
import type { UsageEventInput } from "./schemas";

async function findByIdempotencyKey(db: DbOrTx, companyId: string, key: string) {
  const [row] = await db
    .select()
    .from(usageEvents)
    .where(and(eq(usageEvents.companyId, companyId), eq(usageEvents.idempotencyKey, key)))
    .limit(1);
  return row ?? null;
}

function replay(existing: UsageEvent, requestHash: string): { event: UsageEvent; replayed: true } {
  if (existing.requestHash !== requestHash) {
    throw new AppError("conflict", "This Idempotency-Key was already used with a different request body", {
      wireCode: "idempotency_key_reused",
    });
  }
  return { event: existing, replayed: true };
}

/**
 * Records a usage event and debits it, atomically: an event the balance cannot cover is refused
 * (402) and not stored. With an idempotency key, a retry returns the first event without charging
 * again; the same key with another body is a 409. Two racing retries meet on the unique index: the
 * loser's transaction (charge included) rolls back and it returns the winner's event.
 */
export async function recordUsage(
  db: DbOrTx,
  args: { companyId: string; input: UsageEventInput; idempotencyKey?: string | null },
): Promise<{ event: UsageEvent; replayed: boolean }> {
  const { companyId, input } = args;
  const idempotencyKey = args.idempotencyKey ?? null;
  const requestHash = createHash("sha256").update(canonicalJson(input)).digest("hex");
  if (idempotencyKey) {
    const existing = await findByIdempotencyKey(db, companyId, idempotencyKey);
    if (existing) return replay(existing, requestHash);
  }
  const costMicro = usageCostMicro(input.source, input.duration_s);
  const id = newId("usage");
  try {
    const recorded = await db.transaction(async (tx) => {
      const entry = await charge(tx, {
        companyId,
        costMicro,
        entry: {
          kind: LEDGER_KIND.usage,
          source: input.source,
          referenceId: id,
          // The caller's metadata is nested, never spread: spread in, it could overwrite (forge) the
          // entry's own fields (duration_s, a shortfall note…) that the panel and auditors read.
          metadata: { duration_s: input.duration_s, direction: input.direction, caller_metadata: input.metadata },
        },
      });
      const [event] = await tx
        .insert(usageEvents)
        .values({
          id,
          companyId,
          source: input.source,
          durationS: input.duration_s,
          direction: input.direction,
          costMicro,
          balanceAfterMicro: entry.balanceAfterMicro,
          metadata: input.metadata,
          idempotencyKey,
          requestHash,
          createdAt: entry.createdAt,
        })
        .returning();
      return { event: event!, replayed: false };
    });
    countBilled("usage_event", costMicro);
    return recorded;
  } catch (err) {
    if (idempotencyKey && isUniqueViolation(err)) {
      const existing = await findByIdempotencyKey(db, companyId, idempotencyKey);
      if (existing) return replay(existing, requestHash);
    }
    throw err;
  }
}
