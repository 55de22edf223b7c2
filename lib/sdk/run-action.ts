import "server-only";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { sdkActionRuns } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { canonicalJson } from "@/lib/billing/canonical-json";
import { AppError } from "@/lib/errors";
import { getAction } from "./registry";
import type { ActionRequest } from "./schemas";
import { validateActionInput } from "./validate-input";

export interface ActionResponse {
  ok: true;
  result: Record<string, unknown>;
  refresh: string[];
}

/**
 * POST /v1/sdk/action: finds the action (404), validates input (400 naming the field), runs it in a
 * transaction. An `idempotency_key` claim row is inserted first: a repeat gets the stored result, a
 * concurrent one blocks on the primary key until the first ends, so an action acts at most once per
 * key. The same key with other input is 409.
 * @returns the response and whether it was replayed from a stored result.
 */
export async function runAction(
  db: DbOrTx,
  args: { companyId: string; actor: string; request: ActionRequest },
): Promise<{ response: ActionResponse; replayed: boolean }> {
  const { companyId, actor, request } = args;
  const { service, action } = getAction(request.service, request.action);
  const input = validateActionInput(action, request.input);
  const perform = async (tx: DbOrTx): Promise<ActionResponse> => {
    const outcome = await action.run(tx, { companyId, actor, input });
    return { ok: true, result: outcome.result, refresh: outcome.refresh ?? action.refresh };
  };
  const key = request.idempotency_key;
  if (key === undefined) return { response: await db.transaction(perform), replayed: false };

  const inputHash = createHash("sha256").update(canonicalJson(request.input)).digest("hex");
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(sdkActionRuns)
      .values({
        companyId,
        idempotencyKey: key,
        service: service.name,
        action: action.name,
        inputHash,
        status: "in_progress",
      })
      .onConflictDoNothing()
      .returning({ key: sdkActionRuns.idempotencyKey });
    const mine = and(eq(sdkActionRuns.companyId, companyId), eq(sdkActionRuns.idempotencyKey, key));
    if (claimed.length === 0) {
      // A new statement: in READ COMMITTED it sees the row the conflicting transaction committed.
      const [prior] = await tx.select().from(sdkActionRuns).where(mine).limit(1);
      if (!prior || prior.status !== "completed") {
        throw new AppError("conflict", "An action with this idempotency_key is still in progress; retry", {
          wireCode: "idempotency_in_progress",
          param: "idempotency_key",
        });
      }
      if (prior.service !== service.name || prior.action !== action.name || prior.inputHash !== inputHash) {
        throw new AppError("conflict", "This idempotency_key was used for another service, action or input", {
          wireCode: "idempotency_key_reused",
          param: "idempotency_key",
        });
      }
      return { response: { ok: true, result: prior.result ?? {}, refresh: prior.refresh ?? [] }, replayed: true };
    }
    const response = await perform(tx);
    await tx
      .update(sdkActionRuns)
      .set({ status: "completed", result: response.result, refresh: response.refresh })
      .where(mine);
    return { response, replayed: false };
  });
}
