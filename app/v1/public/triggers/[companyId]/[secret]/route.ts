import { db } from "@/db/client";
import { clientAddress } from "@/lib/net/client-ip";
import { publicRoute, routes } from "@/lib/http";
import {
  acceptEvent,
  authenticateTrigger,
  enforceWebhookRateLimit,
  idempotencyKeyOf,
  readTrigger,
  throttleInvalidTriggers,
} from "@/lib/webhooks";

type P = { companyId: string; secret: string };

/** SPEC "Inbound webhook" (no key): 202 `{"id","status":"accepted"}` once the event and its job are committed. */
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: publicRoute<P>(async ({ req, params }) => {
    const address = clientAddress(req.headers.get("x-forwarded-for"), req);
    const webhook = await throttleInvalidTriggers(address, () => authenticateTrigger(db, params));
    const rateHeaders = await enforceWebhookRateLimit(webhook);
    const idempotencyKey = idempotencyKeyOf(req);
    const input = await readTrigger(req, webhook);
    const { event } = await acceptEvent(db, { webhook, input, idempotencyKey });
    return Response.json({ id: event.id, status: "accepted" }, { status: 202, headers: rateHeaders });
  }),
});
