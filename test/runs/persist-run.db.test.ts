import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { LEDGER_KIND, RUN_STATUS, THREAD_SOURCE } from "@/db/enums";
import { companies, ledgerEntries, messages, runs, threads } from "@/db/schema";
import { newId } from "@/lib/ids";
import { ledgerIdForRun, writeRun, type PersistJob } from "@/lib/runs/persist-run";
import { makeCompany, makeThread } from "../support/factories";

const OT = 1_000_000;

/** A finished run's persist job on a persistent thread, as persistJob builds it. */
function job(companyId: string, threadId: string, over: Partial<PersistJob> = {}): PersistJob {
  const runId = newId("run");
  return {
    runId,
    companyId,
    threadId,
    source: THREAD_SOURCE.api,
    persistent: true,
    status: RUN_STATUS.completed,
    requestedModel: "gpt-4o-mini",
    stream: false,
    promptTokens: 20,
    completionTokens: 15,
    cachedTokens: 0,
    costMicro: 2 * OT,
    latencyMs: 5,
    finishReason: "stop",
    error: null,
    toolCalls: [],
    appliedRules: [],
    citations: [],
    steps: [],
    messages: [
      { id: newId("message"), role: "assistant", content: "the answer", extra: {}, run_id: runId, seq: 0, tokens: 3 },
    ],
    billable: true,
    entry: {
      id: ledgerIdForRun(runId),
      kind: LEDGER_KIND.run,
      source: THREAD_SOURCE.api,
      model: "gpt-4o-mini",
      promptTokens: 20,
      completionTokens: 15,
      metadata: { run_id: runId },
    },
    // A lease the reconciler released under the run: the cost cannot be drawn from it.
    hold: { lease: { id: "res_released_under_the_run", companyId }, amountMicro: 5 * OT },
    ...over,
  };
}

describe("persisting a run", () => {
  it("bills a run whose record was stored while its bill was not (the lease gone, the bill from the balance lost): the retry bills it, once", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const thread = await makeThread(db, { companyId: co.id, messages: [{ role: "user", content: "hi" }] });
    const j = job(co.id, thread.id);
    // The state a failed bill leaves: the record committed (first statement), no ledger row.
    const first = await writeRun({ ...j, billable: false });
    expect(first).toMatchObject({ already: false, firstSeq: 1 });
    expect(await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, j.entry.id!))).toHaveLength(0);

    // The retry finds the record stored and bills from the balance.
    const retry = await writeRun(j);
    expect(retry.already).toBe(false);
    expect(retry.drawnMicro).toBe(0);
    const bills = await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, j.entry.id!));
    expect(bills).toHaveLength(1);
    expect(bills[0]!.amountMicro).toBe(-2 * OT);
    const [company] = await db
      .select({ balance: companies.balanceMicro })
      .from(companies)
      .where(eq(companies.id, co.id));
    expect(company!.balance).toBe(98 * OT);

    // Once more (a lost acknowledgement of that bill): nothing is billed twice, nothing stored twice.
    expect(await writeRun(j)).toMatchObject({ already: true });
    expect(await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, j.entry.id!))).toHaveLength(1);
    expect(await db.select().from(runs).where(eq(runs.id, j.runId))).toHaveLength(1);
    expect(
      await db
        .select()
        .from(messages)
        .where(and(eq(messages.threadId, thread.id), eq(messages.runId, j.runId))),
    ).toHaveLength(1);
  });

  it("a run on a thread it makes (a plain stored response): thread, input, answer, run and bill in one statement, once", async () => {
    const co = await makeCompany(db, { creditsOt: 100 });
    const threadId = newId("thread");
    const base = job(co.id, threadId);
    const j = job(co.id, threadId, {
      source: THREAD_SOURCE.responses,
      newThread: true,
      hold: null,
      messages: [
        { id: newId("message"), role: "user", content: "hi", extra: {}, run_id: base.runId, seq: 0, tokens: 5 },
        { ...base.messages[0]!, run_id: base.runId, seq: 1 },
      ],
      runId: base.runId,
      entry: base.entry,
    });
    expect(await writeRun(j)).toMatchObject({ already: false });
    const [thread] = await db.select().from(threads).where(eq(threads.id, threadId));
    expect(thread).toMatchObject({ companyId: co.id, source: THREAD_SOURCE.responses, nextSeq: 2 });
    const stored = await db.select().from(messages).where(eq(messages.threadId, threadId)).orderBy(messages.seq);
    expect(stored.map((m) => [m.seq, m.role, m.runId, m.tokens])).toEqual([
      [0, "user", j.runId, 5],
      [1, "assistant", j.runId, 3],
    ]);
    expect(await db.select().from(runs).where(eq(runs.id, j.runId))).toHaveLength(1);

    // A retry (a lost acknowledgement) writes and bills nothing more.
    expect(await writeRun(j)).toMatchObject({ already: true });
    expect(await db.select().from(messages).where(eq(messages.threadId, threadId))).toHaveLength(2);
    const bills = await db.select().from(ledgerEntries).where(eq(ledgerEntries.id, j.entry.id!));
    expect(bills).toHaveLength(1);
    expect(bills[0]!.amountMicro).toBe(-2 * OT);
  });
});
