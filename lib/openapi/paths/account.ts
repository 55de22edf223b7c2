import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { LEDGER_KINDS, USAGE_DIRECTIONS, USAGE_SOURCES } from "@/db/enums";
import { LedgerQuery, UsageEventInput } from "@/lib/billing/schemas";
import type { toPublicLedgerEntry, toPublicUsageEvent } from "@/lib/billing/to-public";
import { describes, json, listOf, operation, rateLimited, unixTime } from "../common/components";

const Ot = (description: string) => z.number().meta({ description: `${description}, in O₮` });

/** The caller's company: identity, balance, ledger and usage events (SPEC §2, CONTRACT 5.8). */
export function registerAccountPaths(r: OpenAPIRegistry) {
  const tags = ["Account"];
  const LedgerEntry = r.register(
    "LedgerEntry",
    describes<ReturnType<typeof toPublicLedgerEntry>>()(
      z.object({
        id: z.string(),
        object: z.literal("ledger.entry"),
        kind: z.enum(LEDGER_KINDS),
        source: z.string().nullable(),
        amount_ot: Ot("Negative for debits"),
        balance_after_ot: Ot("The balance after this entry"),
        model: z.string().nullable(),
        prompt_tokens: z.number().int().nullable(),
        completion_tokens: z.number().int().nullable(),
        reference_id: z.string().nullable().meta({ description: "The run, completion or usage event" }),
        created_at: unixTime(),
        metadata: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
  );
  const UsageEvent = r.register(
    "UsageEvent",
    describes<ReturnType<typeof toPublicUsageEvent>>()(
      z.object({
        id: z.string(),
        object: z.literal("usage.event"),
        source: z.enum(USAGE_SOURCES),
        duration_s: z.number(),
        direction: z.enum(USAGE_DIRECTIONS),
        cost_ot: Ot("The event's cost"),
        balance_ot: Ot("The balance after the event"),
        metadata: z.record(z.string(), z.unknown()),
        created_at: unixTime(),
      }),
    ),
  );

  operation(r, {
    method: "get",
    path: "/v1/me",
    operationId: "getMe",
    summary: "Retrieve the key's company",
    tags,
    scope: "chat",
    ok: {
      200: json(
        "The company the key belongs to",
        z.object({ company_id: z.string(), company_name: z.string() }),
        rateLimited,
      ),
    },
  });
  operation(r, {
    method: "get",
    path: "/v1/usage",
    operationId: "listLedger",
    summary: "List ledger entries",
    tags,
    scope: "chat",
    request: { query: LedgerQuery },
    ok: {
      200: json(
        "The balance and the ledger, newest first",
        listOf(LedgerEntry).extend({ balance_ot: Ot("The company's balance") }),
        rateLimited,
      ),
    },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/usage",
    operationId: "recordUsage",
    summary: "Record usage event",
    description:
      "Bills a usage event (`voice_call`, `whisper`) per second. `Idempotency-Key` makes a retry answer the first event (`idempotent-replayed: true`).",
    tags,
    scope: "chat",
    request: {
      headers: z.object({ "idempotency-key": z.string().max(255).optional() }),
      body: { content: { "application/json": { schema: UsageEventInput } } },
    },
    ok: { 201: json("The recorded event", UsageEvent, rateLimited) },
    errors: [400, 402],
  });
}
