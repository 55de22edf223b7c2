import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { replayEvent, toPublicEvent } from "@/lib/webhooks";

/** A failed or dead event processed again (409 otherwise). */
export const POST = panelRoute<{ eventId: string }>(async ({ auth, params }) => {
  const event = await replayEvent(db, { companyId: auth.companyId, eventId: params.eventId });
  return Response.json(toPublicEvent({ ...event, runs: [] }));
});
