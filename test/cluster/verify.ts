import type postgres from "postgres";
import { PAID_KINDS, type CallKind, type Outcome, type PlannedCall } from "./calls";
import { check, ot, quantile } from "./report";
import {
  GRANT_SHARE,
  REDIS_CUT_MS,
  REDIS_RECOVERY_MS,
  REVOKE_WITHIN_MS,
  SEARCHABLE_WITHIN_MS,
  SHUTDOWN_GRACE_MS,
} from "./settings";

/** One burst of the rate-limit check: a key with `limit` per minute, `calls` alternating over both apps. */
export interface LimitRun {
  limit: number;
  calls: number;
  ok: number;
  limited: number;
  other: Record<number, number>;
  header: string | null;
  /** The stores that counted the key: Redis, and PostgreSQL while a process's Redis circuit was open. */
  stores: string[];
}

/** What the run recorded, for the checks: the client's side here, the database's read by `verify`. */
export interface RunRecord {
  sql: postgres.Sql;
  company: { id: string };
  calls: number;
  outcomes: Outcome[];
  /** When things happened (ms since the epoch): sigterm, exit, ready, cutStart, cutEnd, loadStart, loadEnd, settled. */
  events: Record<string, number>;
  exitCode: number | null | undefined;
  lingering: PlannedCall[];
  planByI: Map<number, PlannedCall>;
  byMarker: Map<string, PlannedCall>;
  markerOf: (text: string) => string | undefined;
  taskErrors: string[];
  samples: { at: number; balance: number; reserved: number }[];
  grantMicro: number;
  expectedMicro: number;
  revocations: { from: number; to: number; ms: number }[];
  limits: LimitRun[];
  searchMs: { doc: string; app: number; ms: number; answeredMs: number }[];
  accepted: string[];
  uploaded: string[];
}

/** The cluster test's checks, each printed with its numbers. */
export async function verify(r: RunRecord): Promise<void> {
  const {
    sql,
    company,
    calls: CALLS,
    outcomes,
    events,
    exitCode,
    lingering,
    planByI,
    byMarker,
    markerOf,
    taskErrors,
    samples,
    grantMicro,
    expectedMicro,
    revocations,
    limits,
    searchMs,
    accepted,
    uploaded,
  } = r;
  check(
    "the run's own tasks ran",
    taskErrors.length === 0,
    taskErrors.join("\n") || "sampler, watcher, side checks and disruptions",
  );
  const shutdownWindow = (o: Outcome) =>
    o.app === 1 && events.sigterm !== undefined && o.startedAt <= events.exit! && o.endedAt >= events.sigterm;
  const duringCut = (o: Outcome) =>
    events.cutStart !== undefined && o.endedAt >= events.cutStart && o.startedAt <= events.cutEnd! + REDIS_RECOVERY_MS;
  const window = (o: Outcome) => (shutdownWindow(o) ? "shutdown" : duringCut(o) ? "redis cut" : "normal");
  const success: Record<Outcome["kind"], number> = {
    chat: 200,
    "chat-stream": 200,
    "chat-slow": 200,
    thread: 201,
    run: 200,
    response: 200,
    usage: 201,
    webhook: 202,
    upload: 202,
  };
  /** The shutdown's cancel as SHUTDOWN_GRACE_MS states it: a JSON completion 503, a stream an error frame. */
  const cancelledByShutdown = (o: Outcome) =>
    shutdownWindow(o) &&
    ((o.status === 503 && o.error === "server_shutdown") || (o.status === 200 && o.errorFrame === "server_shutdown"));
  const unexpected = outcomes.filter((o) => {
    if (cancelledByShutdown(o)) return false;
    if (o.status === success[o.kind])
      return !!o.errorFrame || !!o.error || (o.kind !== "thread" && planByI.get(o.i)!.stream && o.done !== true);
    if (o.status === 402) return !(PAID_KINDS.has(o.kind as CallKind) && o.error === "insufficient_balance");
    return true;
  });
  const describe = (o: Outcome) =>
    `#${o.i} ${o.kind} app ${o.app} ${window(o)}: ${o.status}${o.error ? ` ${o.error}` : ""}${o.errorFrame ? ` frame ${o.errorFrame}` : ""} after ${o.endedAt - o.startedAt} ms`;
  const fiveXX = outcomes.filter((o) => o.status >= 500 && !cancelledByShutdown(o));
  const byWindow: Record<string, Record<string, number>> = {};
  for (const o of outcomes) {
    const w = (byWindow[window(o)] ??= {});
    const k = o.status === 0 ? "no answer" : String(o.status);
    w[k] = (w[k] ?? 0) + 1;
  }
  check(
    "every call answered as the contract says: its success, 402 once the balance is out, or the shutdown's cancel",
    unexpected.length === 0,
    `${outcomes.length} requests; by window ${JSON.stringify(byWindow)}; ${outcomes.filter(cancelledByShutdown).length} cancelled by the shutdown, ${outcomes.filter((o) => o.rerouted).length} rerouted from a refused connection` +
      (unexpected.length
        ? `\nunexpected ${unexpected.length}, e.g.\n${unexpected.slice(0, 8).map(describe).join("\n")}`
        : ""),
  );
  check(
    "no 5xx but the shutdown's 503 (none during the Redis cut)",
    fiveXX.length === 0,
    `${fiveXX.length} other 5xx; ${outcomes.filter(duringCut).length} requests overlapped the ${REDIS_CUT_MS} ms Redis cut` +
      (fiveXX.length ? `\n${fiveXX.slice(0, 8).map(describe).join("\n")}` : ""),
  );

  // Billing: ledger entries against the answers and the stored runs.
  const ledger = await sql<
    {
      id: string;
      kind: string;
      amount: string;
      reference_id: string | null;
      run_id: string | null;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }[]
  >`
    SELECT id, kind, amount_micro AS amount, reference_id, metadata->>'run_id' AS run_id, prompt_tokens, completion_tokens
    FROM ledger_entries WHERE company_id = ${company.id}`;
  const runRows = await sql<{ id: string; status: string; content: string | null }[]>`
    SELECT r.id, r.status,
      (SELECT m.content::text FROM messages m WHERE m.thread_id = r.thread_id AND m.role = 'user' ORDER BY m.seq LIMIT 1) AS content
    FROM runs r WHERE r.company_id = ${company.id}`;
  const claims = await sql<
    { event_id: string; run_id: string | null; thread_id: string | null; status: string; error: string | null }[]
  >`
    SELECT event_id, run_id, thread_id, status, error FROM webhook_event_runs WHERE company_id = ${company.id}`;
  const runById = new Map(runRows.map((r) => [r.id, r]));
  const agentRuns = new Set(claims.map((c) => c.run_id).filter((x): x is string => !!x));
  const debits = ledger.filter((e) => e.kind !== "grant");
  const entriesByRef = new Map<string, number>();
  for (const e of debits)
    if (e.reference_id) entriesByRef.set(e.reference_id, (entriesByRef.get(e.reference_id) ?? 0) + 1);
  const billable = outcomes.filter(
    (o) => PAID_KINDS.has(o.kind as CallKind) && o.status >= 200 && o.status < 300 && o.kind !== "thread",
  );
  const notOnce = billable.filter((o) => !o.id || entriesByRef.get(o.id) !== 1);
  check(
    "every answered paid call billed exactly once (a ledger entry whose reference is the id the client got)",
    notOnce.length === 0 && billable.length > 0,
    `${billable.length} answered paid calls; ${notOnce.length} not billed exactly once` +
      (notOnce.length
        ? `\n${notOnce
            .slice(0, 8)
            .map((o) => `${describe(o)} id ${o.id}: ${entriesByRef.get(o.id ?? "") ?? 0} entries`)
            .join("\n")}`
        : ""),
  );
  const answeredIds = new Set(billable.map((o) => o.id));
  const outcomeByI = new Map<number, Outcome[]>();
  for (const o of outcomes) outcomeByI.set(o.i, [...(outcomeByI.get(o.i) ?? []), o]);
  const category: Record<string, number> = {};
  const orphans: string[] = [];
  const refusedBilled: string[] = [];
  for (const e of debits) {
    let kind: string;
    if (e.reference_id && answeredIds.has(e.reference_id)) kind = "an answered call";
    else if (e.run_id && agentRuns.has(e.run_id)) kind = "an agent run woken by a webhook";
    else if (e.run_id && runById.has(e.run_id)) {
      const marker = markerOf(runById.get(e.run_id)!.content ?? "");
      const call = marker ? byMarker.get(marker) : undefined;
      const seen = call ? (outcomeByI.get(call.i) ?? []).filter((o) => o.kind !== "thread") : [];
      if (seen.some(cancelledByShutdown)) kind = "a call cancelled by the shutdown (what was generated)";
      else {
        kind = "another stored run";
        if (seen.some((o) => o.status === 402)) refusedBilled.push(`${e.id} (${marker})`);
      }
    } else {
      kind = "nothing";
      orphans.push(`${e.id} ${e.kind} ref ${e.reference_id} run ${e.run_id}`);
    }
    category[kind] = (category[kind] ?? 0) + 1;
  }
  const dupRefs = [...entriesByRef].filter(([, n]) => n > 1);
  const entriesByMarker = new Map<string, (typeof debits)[number][]>();
  for (const e of debits) {
    const marker = e.run_id ? markerOf(runById.get(e.run_id)?.content ?? "") : undefined;
    if (marker) entriesByMarker.set(marker, [...(entriesByMarker.get(marker) ?? []), e]);
  }
  check(
    "no ledger entry without an answered call or a stored run, none twice, none for a refused call",
    orphans.length === 0 && dupRefs.length === 0 && refusedBilled.length === 0,
    `${debits.length} debits: ${Object.entries(category)
      .map(([k, n]) => `${n} for ${k}`)
      .join(", ")}` +
      (orphans.length ? `\nwithout a call or run: ${orphans.slice(0, 5).join("; ")}` : "") +
      (dupRefs.length ? `\nreferenced twice: ${dupRefs.slice(0, 5).join("; ")}` : "") +
      (refusedBilled.length ? `\nbilled though answered 402: ${refusedBilled.slice(0, 5).join("; ")}` : ""),
  );

  const cut = lingering.map((c) => {
    const o = outcomes.find((x) => x.i === c.i)!;
    const bills = entriesByMarker.get(c.marker) ?? [];
    return { c, o, bills, ok: cancelledByShutdown(o) && bills.length === 1 };
  });
  check(
    "calls still running when the grace ends are cancelled as SHUTDOWN_GRACE_MS says and billed once for what was generated",
    cut.every((x) => x.ok),
    cut
      .map(
        ({ c, o, bills }) =>
          `${c.stream ? "stream" : "JSON"} #${c.i}: ${o.status}${o.error ? ` ${o.error}` : ""}${o.errorFrame ? ` frame ${o.errorFrame}` : ""} after ${o.endedAt - o.startedAt} ms; ${bills.length} ledger entries${bills.length ? ` (${bills.map((b) => `${b.prompt_tokens}+${b.completion_tokens} tokens, ${ot(-Number(b.amount))} O₮`).join(", ")})` : ""}`,
      )
      .join("\n"),
  );

  const [final] = await sql<{ balance: string; reserved: string; sum: string }[]>`
    SELECT balance_micro AS balance, reserved_micro AS reserved,
      (SELECT coalesce(sum(amount_micro), 0) FROM ledger_entries WHERE company_id = ${company.id}) AS sum
    FROM companies WHERE id = ${company.id}`;
  const minSample = Math.min(...samples.map((s) => s.balance));
  const minFree = Math.min(...samples.map((s) => s.balance - s.reserved));
  const firstRefusal = outcomes.filter((o) => o.status === 402).sort((a, b) => a.i - b.i)[0];
  check(
    "the balance never below zero, and the final balance is the sum of the ledger",
    minSample >= 0 && minFree >= 0 && Number(final!.balance) === Number(final!.sum) && Number(final!.reserved) === 0,
    `grant ${ot(grantMicro)} O₮ (${GRANT_SHARE * 100} % of the plan's ${ot(expectedMicro)} O₮); lowest of ${samples.length} samples ${ot(minSample)} O₮ (unreserved ${ot(minFree)}); final ${ot(Number(final!.balance))} O₮, ledger sum ${ot(Number(final!.sum))} O₮, reserved ${final!.reserved}`,
  );
  check(
    "the balance ran out midway",
    !!firstRefusal && firstRefusal.i > CALLS * 0.15 && firstRefusal.i < CALLS * 0.85,
    firstRefusal ? `first 402 at call #${firstRefusal.i} of ${CALLS}` : "no call was refused",
  );

  check(
    `a key revoked on one app is refused by the other within ${REVOKE_WITHIN_MS} ms`,
    revocations.length === 2 && revocations.every((r) => r.ms <= REVOKE_WITHIN_MS),
    revocations.map((r) => `revoked on app ${r.from}, refused by app ${r.to} after ${r.ms} ms`).join("; "),
  );
  check(
    "one rate limit across both apps, within its stated slack",
    limits.length === 2 && limits.every((l) => limitHolds(l).ok),
    limits
      .map((l) => {
        const { low, high } = limitHolds(l);
        return `${l.limit}/min: ${l.calls} calls alternating over both apps → ${l.ok} admitted, ${l.limited} 429${Object.keys(l.other).length ? `, other ${JSON.stringify(l.other)}` : ""}; counted in ${l.stores.join(" and ") || "no store"}; allowed ${low === high ? `exactly ${low}` : `${low}..${high}`}`;
      })
      .join("\n") +
      "\n(slack: a key counted in grants may leave one grant partly unused per app; around a switch of store a key may get its limit in each store)",
  );

  /**
   * The limits' stated slack (docs/operations.md, lib/rate-limit): never above the limit in each store
   * that counted the key, and below it only by what the apps' last grants left unused.
   */
  function limitHolds(l: (typeof limits)[number]): { ok: boolean; low: number; high: number } {
    const chunk = l.limit >= 640 ? Math.min(100, Math.floor(l.limit / 64)) : 1;
    const low = l.limit - 2 * (chunk - 1);
    const high = l.limit * Math.max(1, l.stores.length);
    const ok = l.ok >= low && l.ok <= high && l.ok + l.limited === l.calls && l.header === String(l.limit);
    return { ok, low, high };
  }

  // Webhooks: every accepted event final, one claim for its agent, at most one completed run.
  const eventRows = await sql<{ id: string; status: string }[]>`
    SELECT id, status FROM webhook_events WHERE company_id = ${company.id}`;
  const runsPerThread = await sql<{ thread_id: string; completed: number; total: number }[]>`
    SELECT thread_id, count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*)::int AS total
    FROM runs WHERE company_id = ${company.id} AND thread_id IN (SELECT thread_id FROM webhook_event_runs WHERE company_id = ${company.id} AND thread_id IS NOT NULL)
    GROUP BY thread_id`;
  const threadRuns = new Map(runsPerThread.map((r) => [r.thread_id, r]));
  const claimsByEvent = new Map<string, (typeof claims)[number][]>();
  for (const c of claims) claimsByEvent.set(c.event_id, [...(claimsByEvent.get(c.event_id) ?? []), c]);
  const eventStatus = new Map(eventRows.map((e) => [e.id, e.status]));
  const badEvents: string[] = [];
  const eventTally: Record<string, number> = {};
  for (const id of accepted) {
    const status = eventStatus.get(id);
    const cs = claimsByEvent.get(id) ?? [];
    const runsOf = cs[0]?.thread_id ? threadRuns.get(cs[0].thread_id) : undefined;
    const reason = cs[0]?.status === "failed" ? ` (${cs[0].error?.split(":")[0]})` : "";
    eventTally[`${status}${reason}`] = (eventTally[`${status}${reason}`] ?? 0) + 1;
    if (status !== "done" && status !== "failed") badEvents.push(`${id}: ${status}`);
    else if (cs.length !== 1) badEvents.push(`${id}: ${cs.length} claims`);
    else if ((runsOf?.completed ?? 0) > 1) badEvents.push(`${id}: ${runsOf!.completed} completed runs`);
    else if (cs[0]!.status === "completed" && (runsOf?.completed !== 1 || entriesOfRun(cs[0]!.run_id) !== 1))
      badEvents.push(
        `${id}: completed with ${runsOf?.completed ?? 0} completed runs, ${entriesOfRun(cs[0]!.run_id)} ledger entries`,
      );
  }
  function entriesOfRun(runId: string | null): number {
    return debits.filter((e) => e.run_id === runId).length;
  }
  check(
    "each webhook event run once",
    badEvents.length === 0 && accepted.length > 0 && eventRows.length === accepted.length,
    `${accepted.length} events accepted, ${eventRows.length} stored: ${JSON.stringify(eventTally)}` +
      (badEvents.length ? `\n${badEvents.slice(0, 8).join("\n")}` : ""),
  );

  // Documents: ready, indexed by one attempt, every chunk stored once, searchable from both apps.
  const docs = await sql<
    { id: string; status: string; attempts: number; chunk_count: number; chunks: number; ms: number | null }[]
  >`
    SELECT d.id, d.status, d.attempts, d.chunk_count,
      (SELECT count(*)::int FROM knowledge_chunks c WHERE c.document_id = d.id) AS chunks,
      (extract(epoch FROM d.indexed_at - d.created_at) * 1000)::int AS ms
    FROM knowledge_documents d WHERE d.company_id = ${company.id}`;
  const badDocs = docs.filter(
    (d) => d.status !== "ready" || d.attempts !== 1 || d.chunk_count < 1 || d.chunks !== d.chunk_count,
  );
  check(
    "each document indexed once",
    badDocs.length === 0 && docs.length === uploaded.length && uploaded.length > 0,
    `${uploaded.length} uploads accepted, ${docs.length} documents, upload → ready p50 ${quantile(
      docs.map((d) => d.ms ?? 0),
      0.5,
    )} ms, max ${Math.max(...docs.map((d) => d.ms ?? 0))} ms` +
      (badDocs.length
        ? `\n${badDocs
            .slice(0, 8)
            .map(
              (d) =>
                `${d.id}: ${d.status}, ${d.attempts} attempts, ${d.chunks} chunks for chunk_count ${d.chunk_count}`,
            )
            .join("\n")}`
        : ""),
  );
  const slow = searchMs.filter((s) => s.ms > SEARCHABLE_WITHIN_MS);
  check(
    `each document searchable from both apps within ${SEARCHABLE_WITHIN_MS} ms of ready`,
    slow.length === 0 && searchMs.length === uploaded.length * 2,
    `${uploaded.length} documents, each searched on both apps until found: the search that found it sent after ready p50 ${quantile(
      searchMs.map((s) => s.ms),
      0.5,
    )} ms, p95 ${quantile(
      searchMs.map((s) => s.ms),
      0.95,
    )} ms, max ${Math.max(0, ...searchMs.map((s) => s.ms))} ms; answered after ready p50 ${quantile(
      searchMs.map((s) => s.answeredMs),
      0.5,
    )} ms, max ${Math.max(0, ...searchMs.map((s) => s.answeredMs))} ms` +
      (slow.length
        ? `\nslow: ${slow
            .slice(0, 8)
            .map((s) => `${s.doc} on app ${s.app}: sent ${s.ms} ms, answered ${s.answeredMs} ms after ready`)
            .join("; ")}`
        : ""),
  );
  check(
    "app 1 exits 0 on SIGTERM within the grace and restarts",
    exitCode === 0 && events.exit! - events.sigterm! <= SHUTDOWN_GRACE_MS + 10_000 && events.ready !== undefined,
    `exit code ${exitCode} after ${events.exit! - events.sigterm!} ms (grace ${SHUTDOWN_GRACE_MS} ms); ready again ${events.ready! - events.exit!} ms later`,
  );
}
