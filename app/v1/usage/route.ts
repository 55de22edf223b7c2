import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import {
  getBalance,
  IdempotencyKey,
  LedgerQuery,
  listLedger,
  microToOt,
  recordUsage,
  toPublicLedgerEntry,
  toPublicUsageEvent,
  UsageEventInput,
} from "@/lib/billing";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { toListResponse } from "@/lib/pagination";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, UsageEventInput);
    const header = req.headers.get("idempotency-key");
    const idempotencyKey = header === null ? null : IdempotencyKey.parse(header);
    const { event, replayed } = await recordUsage(db, { companyId: auth.companyId, input, idempotencyKey });
    return Response.json(toPublicUsageEvent(event), {
      status: 201,
      headers: replayed ? { "idempotent-replayed": "true" } : undefined,
    });
  }),
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const query = readQuery(req, LedgerQuery);
    const [page, balance] = await Promise.all([
      listLedger(db, { companyId: auth.companyId, query }),
      getBalance(db, { companyId: auth.companyId }),
    ]);
    return Response.json(toListResponse(page, toPublicLedgerEntry, { balance_ot: microToOt(balance.balanceMicro) }));
  }),
});
