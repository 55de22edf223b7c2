import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import postgres from "postgres";
import { db } from "@/db/client";
import { databaseUrl } from "@/db/url";
import { activeRuns, ledgerEntries, messages, runs } from "@/db/schema";
import { sseData, useGateway } from "../support/gateway";

/**
 * Runs over real HTTP against the production build and a fake upstream on loopback (SPEC "Threads
 * and runs", CONTRACT 6): the response, frames, history, one active run per thread, cancel,
 * failures, isolation and steps.
 */
const gw = useGateway({
  fake: {
    usage: (_body, reply) => ({ prompt: 50, completion: reply.split(/\s+/).filter(Boolean).length, cached: 10 }),
  },
  env: { UPSTREAM_RETRIES: "1", UPSTREAM_RETRY_BASE_MS: "10" },
});

const runPath = (threadId: string) => `/v1/threads/${threadId}/runs`;

describe("POST /v1/threads/{id}/runs", () => {
  it("answers with every field of the run response, adds the assistant message with its run_id, and bills a `run` ledger entry", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [
      { role: "user", content: "hello there" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "what is up" },
    ]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-run-id")).toBe(res.json.id);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^run_/),
      object: "thread.run",
      thread_id: threadId,
      model: "gpt-4o-mini",
      status: "completed",
      content: expect.stringContaining("what is up"),
      usage: {
        prompt_tokens: 50,
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
        cached_tokens: 10,
      },
      tool_calls: [],
      applied_rules: [],
      citations: [],
      latency_ms: expect.any(Number),
      cost_ot: expect.any(Number),
      error: null,
      created_at: expect.any(Number),
      completed_at: expect.any(Number),
    });
    expect(res.json.usage.total_tokens).toBe(50 + res.json.usage.completion_tokens);
    // The upstream got the whole thread in order, roles as stored.
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.fake.requests[0]!.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);

    const listed = await gw.call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
    expect(listed.json.data.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const answer = listed.json.data[3];
    expect(answer).toMatchObject({ role: "assistant", content: res.json.content, run_id: res.json.id });
    const seqs = await db
      .select({ seq: messages.seq })
      .from(messages)
      .where(eq(messages.threadId, threadId))
      .orderBy(asc(messages.seq));
    expect(seqs.map((s) => s.seq)).toEqual([0, 1, 2, 3]);

    const [entry] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.referenceId, res.json.id));
    expect(entry).toMatchObject({ kind: "run", model: "gpt-4o-mini" });
    expect(-entry!.amountMicro / 1e6).toBeCloseTo(res.json.cost_ot, 6);

    // GET and list show the same run.
    const got = await gw.call(key, "GET", `${runPath(threadId)}/${res.json.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      id: res.json.id,
      status: "completed",
      content: res.json.content,
      usage: res.json.usage,
    });
    const list = await gw.call(key, "GET", runPath(threadId));
    expect(list.json).toMatchObject({ object: "list", first_id: res.json.id, last_id: res.json.id, has_more: false });
    expect(list.json.data[0].content).toBe(res.json.content);
  });

  it("streams exactly SPEC's frames: {delta, model} …, {done, usage, latency_ms}, [DONE]", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "stream me please" }]);
    const res = await fetch(`${gw.server.url}${runPath(threadId)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const runId = res.headers.get("x-run-id")!;
    expect(runId).toMatch(/^run_/);
    const all = await sseData(res);
    expect(all.at(-1)).toBe("[DONE]");
    const final = all.at(-2) as { done: boolean; usage: Record<string, number>; latency_ms: number };
    expect(Object.keys(final).sort()).toEqual(["done", "latency_ms", "usage"]);
    expect(final.done).toBe(true);
    expect(final.usage).toEqual({
      prompt_tokens: 50,
      completion_tokens: expect.any(Number),
      total_tokens: 50 + final.usage.completion_tokens!,
    });
    const deltas = all.slice(0, -2) as { delta: string; model: string }[];
    expect(deltas.length).toBeGreaterThan(0);
    for (const d of deltas) expect(Object.keys(d).sort()).toEqual(["delta", "model"]);
    expect(deltas.every((d) => d.model === "gpt-4o-mini")).toBe(true);
    const text = deltas.map((d) => d.delta).join("");
    expect(text).toContain("stream me please");
    const got = await gw.call(key, "GET", `${runPath(threadId)}/${runId}`);
    expect(got.json).toMatchObject({ status: "completed", content: text });
  });

  it("refuses a second run while one is active (409 conflict_error), accepts messages meanwhile, and the next run sees them", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "first question" }]);
    gw.fake.queue.push({ kind: "delay", ms: 1500 });
    const slow = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    await new Promise((r) => setTimeout(r, 400));
    const [second, added] = await Promise.all([
      gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" }),
      gw.call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: "added while running" }),
    ]);
    expect(second.status).toBe(409);
    expect(second.json.error).toMatchObject({ type: "conflict_error" });
    expect(second.json.error.message).toMatch(/active run/);
    expect(added.status).toBe(201);
    const first = await slow;
    expect(first.status).toBe(200);
    // Released: the next run is accepted and its history has the message added meanwhile.
    const next = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(next.status).toBe(200);
    const sent = gw.fake.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content);
    expect(sent).toContain("added while running");
    // Two runs at once on a fresh thread: exactly one 200 and one 409.
    const other = await gw.thread(key, [{ role: "user", content: "race" }]);
    gw.fake.queue.push({ kind: "delay", ms: 300 }, { kind: "delay", ms: 300 });
    const raced = await Promise.all([1, 2].map(() => gw.call(key, "POST", runPath(other), { model: "gpt-4o-mini" })));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it("a burst of runs, claimed together in one statement, keeps one run per thread, each with its own history, and another company's thread 404", async () => {
    const { key, companyId } = await gw.tenant();
    const other = await gw.tenant();
    const threads = await Promise.all(
      Array.from({ length: 8 }, (_, i) => gw.thread(key, [{ role: "user", content: `burst question ${i}` }])),
    );
    const foreign = await gw.thread(other.key, [{ role: "user", content: "not yours" }]);
    for (let i = 0; i < 16; i++) gw.fake.queue.push({ kind: "delay", ms: 600 });
    // Two runs on each thread and one on another company's, all at once: claims that arrive while
    // one is in flight go out together (lib/runs/claim-thread.ts).
    const calls = [...threads, ...threads].map((t) => gw.call(key, "POST", runPath(t), { model: "gpt-4o-mini" }));
    const refused = gw.call(key, "POST", runPath(foreign), { model: "gpt-4o-mini" });
    const answers = await Promise.all(calls);
    expect((await refused).status).toBe(404);
    for (const [i, t] of threads.entries()) {
      const pair = [answers[i]!, answers[i + threads.length]!];
      expect(pair.map((r) => r.status).sort()).toEqual([200, 409]);
      const won = pair.find((r) => r.status === 200)!;
      expect(won.json).toMatchObject({ thread_id: t, status: "completed" });
      expect(won.json.content).toContain(`burst question ${i}`);
    }
    const stored = await db.select({ threadId: runs.threadId }).from(runs).where(eq(runs.companyId, companyId));
    expect(stored.map((r) => r.threadId).sort()).toEqual([...threads].sort());
    const active = await db.select().from(activeRuns).where(eq(activeRuns.threadId, threads[0]!));
    expect(active).toEqual([]);
  });

  it("a run whose claim waited for the previous run's release sees that run's answer (the page is read after the claim, not in the claim statement's older snapshot)", async () => {
    const { key, companyId } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "first question" }]);
    // The previous run, as another server runs it: its claim row, then its persist transaction
    // (the answer stored, the row deleted), held open while the next run's claim arrives.
    await db.insert(activeRuns).values({
      threadId,
      runId: "run_previous_elsewhere",
      companyId,
      model: "gpt-4o-mini",
      owner: "another-host:1:test",
    });
    const previous = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const tx = await previous.reserve();
      await tx`BEGIN`;
      await tx`DELETE FROM active_runs WHERE thread_id = ${threadId}`;
      await tx`
        WITH t AS (UPDATE threads SET next_seq = next_seq + 1 WHERE id = ${threadId} RETURNING next_seq - 1 AS base)
        INSERT INTO messages (id, company_id, thread_id, role, content, seq, run_id)
        SELECT ${`message_prev_${threadId}`}, ${companyId}, ${threadId}, 'assistant', to_jsonb('the previous answer'::text), t.base, 'run_previous_elsewhere' FROM t`;
      // Runs on other threads at the same moment: the claims go out batched, the waiting one among them.
      const others = await Promise.all(
        [1, 2, 3, 4].map((n) => gw.thread(key, [{ role: "user", content: `other ${n}` }])),
      );
      const alongside = others.map((id) => gw.call(key, "POST", runPath(id), { model: "gpt-4o-mini" }));
      const next = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
      // The claim is waiting on the row being deleted (no upstream call for it yet).
      await new Promise((r) => setTimeout(r, 400));
      expect(gw.fake.requests.filter((q) => q.body.messages[0].content === "first question")).toHaveLength(0);
      await tx`COMMIT`;
      tx.release();
      const run = await next;
      expect(run.status).toBe(200);
      expect((await Promise.all(alongside)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    } finally {
      await previous.end({ timeout: 1 });
    }
    const call = gw.fake.requests.find((q) => q.body.messages[0].content === "first question")!;
    expect(call.body.messages.map((m: { content: string }) => m.content)).toEqual([
      "first question",
      "the previous answer",
    ]);
  });

  it("a claim lost with a crash of PostgreSQL (its active_runs row gone mid-run) is stored whole and billed once when the run ends", async () => {
    // The claim commits without a WAL flush of its own (lib/runs/claim-thread.ts): a crash can
    // lose its row. Deleting it mid-run is what such a crash leaves behind.
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "survive a lost claim" }]);
    gw.fake.queue.push({ kind: "delay", ms: 800 });
    const pending = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    let runId: string | undefined;
    for (let i = 0; i < 50 && !runId; i++) {
      await new Promise((r) => setTimeout(r, 20));
      [{ runId } = { runId: undefined }] = await db
        .select({ runId: activeRuns.runId })
        .from(activeRuns)
        .where(eq(activeRuns.threadId, threadId));
    }
    expect(runId).toBeDefined();
    expect((await gw.call(key, "GET", `${runPath(threadId)}/${runId}`)).json.status).toBe("in_progress");
    await db.delete(activeRuns).where(eq(activeRuns.runId, runId!));
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(runId);
    const got = await gw.call(key, "GET", `${runPath(threadId)}/${runId}`);
    expect(got.json).toMatchObject({
      status: "completed",
      content: res.json.content,
      completed_at: expect.any(Number),
    });
    const bills = await db.select().from(ledgerEntries).where(eq(ledgerEntries.referenceId, runId!));
    expect(bills).toHaveLength(1);
    const listed = await gw.call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
    expect(listed.json.data.map((m: { run_id: string | null }) => m.run_id)).toEqual([null, runId]);
  });

  it("cancels a streaming run within 1 s: upstream aborted, status cancelled, billed for what was generated, thread released", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "a long answer please" }]);
    gw.fake.queue.push({ kind: "slow-stream", chunks: 200, intervalMs: 50 });
    const res = await fetch(`${gw.server.url}${runPath(threadId)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true }),
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-run-id")!;
    const body = sseData(res);
    await new Promise((r) => setTimeout(r, 500));
    const t0 = Date.now();
    const cancelled = await gw.call(key, "POST", `${runPath(threadId)}/${runId}/cancel`);
    const took = Date.now() - t0;
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ id: runId, status: "cancelled", error: null });
    expect(took).toBeLessThan(1000);
    expect(gw.fake.requests[0]!.abortedAt).toBeDefined();
    const all = await body;
    expect(all.at(-1)).toBe("[DONE]");
    expect((all.at(-2) as { done: boolean }).done).toBe(true);
    const [run] = await db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ status: "cancelled", owner: null });
    expect(run!.completionTokens).toBeGreaterThan(0);
    const [entry] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.referenceId, runId));
    expect(entry!.amountMicro).toBeLessThan(0);
    expect(entry!.completionTokens).toBe(run!.completionTokens);
    // A finished run cannot be cancelled; the thread takes a new run.
    expect((await gw.call(key, "POST", `${runPath(threadId)}/${runId}/cancel`)).status).toBe(409);
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
  });

  it("cancels a non-streaming run: the request that started it answers 200 with status cancelled", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "wait for it" }]);
    gw.fake.queue.push({ kind: "delay", ms: 5000 });
    const started = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    let runId: string | undefined;
    for (let i = 0; i < 50 && !runId; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const list = await gw.call(key, "GET", runPath(threadId));
      runId = list.json.data.find((r: { status: string }) => r.status === "in_progress")?.id;
    }
    expect(runId).toBeDefined();
    const cancelled = await gw.call(key, "POST", `${runPath(threadId)}/${runId}/cancel`);
    expect(cancelled.json.status).toBe("cancelled");
    const answer = await started;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: runId, status: "cancelled" });
  });

  it("an upstream failure answers 502 with run_id; the run is stored failed and the thread released", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [{ role: "user", content: "fail please" }]);
    gw.fake.queue.push(
      { kind: "error", status: 500, message: "boom" },
      { kind: "error", status: 500, message: "boom" },
    );
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(502);
    expect(res.json.error.type).toBe("upstream_error");
    expect(res.json.run_id).toMatch(/^run_/);
    const got = await gw.call(key, "GET", `${runPath(threadId)}/${res.json.run_id}`);
    expect(got.json).toMatchObject({
      status: "failed",
      error: { code: expect.stringMatching(/^upstream/), message: expect.any(String) },
    });
    const steps = await gw.call(key, "GET", `${runPath(threadId)}/${res.json.run_id}/steps`);
    const model = steps.json.data.find((s: { type: string }) => s.type === "model_call");
    expect(model.detail.retries).toBe(2);
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
  });

  it("402 when the balance cannot cover the run; the run is stored failed and the thread released", async () => {
    const { key } = await gw.tenant(0);
    const threadId = await gw.thread(key, [{ role: "user", content: "no money" }]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(402);
    expect(res.json.error.type).toBe("insufficient_balance");
    expect(gw.fake.requests).toHaveLength(0);
    const list = await gw.call(key, "GET", runPath(threadId));
    expect(list.json.data[0]).toMatchObject({ status: "failed", error: { code: expect.any(String) } });
    // Not locked: the next run is refused for its balance again, not for an active run.
    expect((await gw.call(key, "POST", runPath(threadId), { model: "local-mini" })).status).toBe(402);
  });

  it("404 for another company's thread, profile or model; 400 for a disabled claude- slug naming its or- replacement; 400 for bad fields", async () => {
    const a = await gw.tenant();
    const b = await gw.tenant();
    const threadA = await gw.thread(a.key, [{ role: "user", content: "mine" }]);
    const threadB = await gw.thread(b.key, [{ role: "user", content: "theirs" }]);
    const foreign = await gw.call(a.key, "POST", runPath(threadB), { model: "gpt-4o-mini" });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.type).toBe("not_found_error");
    const profileB = await gw.call(b.key, "POST", "/v1/profiles", { name: "b", system_prompt: "secret" });
    const badProfile = await gw.call(a.key, "POST", runPath(threadA), {
      model: "gpt-4o-mini",
      profile_ids: [profileB.json.id],
    });
    expect(badProfile.status).toBe(404);
    expect(badProfile.json.error.param).toBe("profile_ids");
    const unknownModel = await gw.call(a.key, "POST", runPath(threadA), { model: "no-such-model" });
    expect(unknownModel.status).toBe(404);
    expect(unknownModel.json.error.code).toBe("model_not_found");
    const claude = await gw.call(a.key, "POST", runPath(threadA), { model: "claude-sonnet-4-5" });
    expect(claude.status).toBe(400);
    expect(claude.json.error.message).toMatch(/or-/);
    const typo = await gw.call(a.key, "POST", runPath(threadA), { model: "gpt-4o-mini", profile_id: "x" });
    expect(typo.status).toBe(400);
    expect((await gw.call(a.key, "POST", runPath(threadA), {})).json.error.param).toBe("model");
    const forced = await gw.call(a.key, "POST", runPath(threadA), {
      model: "gpt-4o-mini",
      tool_choice: { type: "function", function: { name: "nope" } },
    });
    expect(forced.status).toBe(400);
    expect(forced.json.error.param).toBe("tool_choice");
    const mentioned = await gw.call(a.key, "POST", runPath(threadA), {
      model: "gpt-4o-mini",
      mentioned_file_ids: ["doc_x"],
    });
    expect(mentioned.status).toBe(404);
    expect(mentioned.json.error.param).toBe("mentioned_file_ids");
    // None of these reached the upstream or left the thread locked.
    expect(gw.fake.requests).toHaveLength(0);
    expect((await gw.call(a.key, "POST", runPath(threadA), { model: "gpt-4o-mini" })).status).toBe(200);
    // Another company's run id, and its steps, are 404 too.
    const runA = (await gw.call(a.key, "GET", runPath(threadA))).json.data[0].id;
    expect((await gw.call(b.key, "GET", `${runPath(threadA)}/${runA}`)).status).toBe(404);
    expect((await gw.call(b.key, "GET", `${runPath(threadA)}/${runA}/steps`)).status).toBe(404);
    expect((await gw.call(b.key, "POST", `${runPath(threadA)}/${runA}/cancel`)).status).toBe(404);
  });

  it("composes profiles in order, then instructions; the default profile when none named; a soft-deleted profile by id; steps record it", async () => {
    const { key } = await gw.tenant();
    const p1 = (await gw.call(key, "POST", "/v1/profiles", { name: "one", system_prompt: "Layer one." })).json;
    const p2 = (
      await gw.call(key, "POST", "/v1/profiles", { name: "two", system_prompt: "Layer two.", is_default: true })
    ).json;
    const threadId = await gw.thread(key, [{ role: "user", content: "compose" }]);
    const run = await gw.call(key, "POST", runPath(threadId), {
      model: "gpt-4o-mini",
      profile_ids: [p2.id, p1.id],
      instructions: "Layer three.",
      use_kb: false,
    });
    expect(run.status).toBe(200);
    const system = gw.fake.requests.at(-1)!.body.messages[0];
    expect(system).toEqual({ role: "system", content: "Layer two.\n\nLayer one.\n\nLayer three." });
    const steps = await gw.call(key, "GET", `${runPath(threadId)}/${run.json.id}/steps`);
    expect(steps.status).toBe(200);
    const types = steps.json.data.map((s: { type: string }) => s.type);
    expect(types).toEqual(["profiles", "history", "model_call"]);
    expect(steps.json.data[0]).toMatchObject({
      id: expect.stringMatching(/^step_/),
      object: "run.step",
      type: "profiles",
      started_at: expect.any(Number),
      duration_ms: expect.any(Number),
      detail: {
        profiles: [
          { id: p2.id, name: "two" },
          { id: p1.id, name: "one" },
        ],
        use_kb: false,
      },
    });
    expect(steps.json.data[2].detail).toMatchObject({ model: "gpt-4o-mini", prompt_tokens: 50, retries: 0 });
    // Paging the steps.
    const page = await gw.call(
      key,
      "GET",
      `${runPath(threadId)}/${run.json.id}/steps?limit=1&after=${steps.json.data[0].id}`,
    );
    expect(page.json).toMatchObject({ has_more: true, data: [{ type: "history" }] });

    // No profile_ids: the default.
    await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(gw.fake.requests.at(-1)!.body.messages[0]).toEqual({ role: "system", content: "Layer two." });
    // Soft-deleted, still resolves by id.
    expect((await gw.call(key, "DELETE", `/v1/profiles/${p1.id}`)).status).toBe(200);
    const again = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini", profile_ids: [p1.id] });
    expect(again.status).toBe(200);
    expect(gw.fake.requests.at(-1)!.body.messages[0]).toEqual({ role: "system", content: "Layer one." });
  });
});

describe("long threads", () => {
  it("a 5,000-message thread sends only the newest messages that fit, says how many were left out, and reads only what it sends", async () => {
    const { key, companyId } = await gw.tenant();
    const threadId = await gw.thread(key, []);
    const sentence = "This is a message of the long thread, about twenty tokens long in all, more or less.";
    for (let b = 0; b < 50; b++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        role: (b * 100 + i) % 2 ? "assistant" : "user",
        content: `#${b * 100 + i} ${sentence}`,
      }));
      expect((await gw.call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: batch })).status).toBe(
        201,
      );
    }
    // gpt-3.5-turbo: a 16,385-token window, 4,096 kept for the answer.
    const run = await gw.call(key, "POST", runPath(threadId), { model: "gpt-3.5-turbo" });
    expect(run.status).toBe(200);
    const sent = gw.fake.requests.at(-1)!.body.messages as { content: string }[];
    expect(sent.length).toBeGreaterThan(200);
    expect(sent.length).toBeLessThan(1000);
    // The newest, in order, ending with the last one.
    expect(sent.at(-1)!.content.startsWith("#4999 ")).toBe(true);
    const firstSent = Number(sent[0]!.content.slice(1, sent[0]!.content.indexOf(" ")));
    expect(sent.map((m) => Number(m.content.slice(1, m.content.indexOf(" "))))).toEqual(
      Array.from({ length: sent.length }, (_, i) => firstSent + i),
    );
    const steps = await gw.call(key, "GET", `${runPath(threadId)}/${run.json.id}/steps`);
    const history = steps.json.data.find((s: { type: string }) => s.type === "history");
    expect(history.detail).toMatchObject({
      messages_in_thread: 5000,
      messages_sent: sent.length,
      messages_left_out: 5000 - sent.length,
    });
    expect(history.detail.history_tokens).toBeLessThanOrEqual(history.detail.budget_tokens);

    // A single message that cannot fit: 400 before any upstream call, and the thread is not locked.
    gw.fake.requests.length = 0;
    const huge = "word ".repeat(14_000);
    expect(
      (await gw.call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: huge })).status,
    ).toBe(201);
    const refused = await gw.call(key, "POST", runPath(threadId), { model: "gpt-3.5-turbo" });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: "context_length_exceeded", param: "messages" });
    expect(gw.fake.requests).toHaveLength(0);
    // A model with a larger window takes it.
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
    const stored = await db
      .select({ n: runs.id })
      .from(runs)
      .where(and(eq(runs.threadId, threadId), eq(runs.companyId, companyId)));
    expect(stored).toHaveLength(3);
  });

  it("a thread's next run reads only what was added since its last run (the server keeps the newest messages it read or stored), gaps of more than a page included", async () => {
    const { key, companyId } = await gw.tenant();
    const threadId = await gw.thread(key, [
      { role: "user", content: "m0" },
      { role: "assistant", content: "m1" },
      { role: "user", content: "m2" },
    ]);
    const sentContents = () => (gw.fake.requests.at(-1)!.body.messages as { content: string }[]).map((m) => m.content);
    const changeBehind = (seq: number, content: string) =>
      db
        .update(messages)
        .set({ content })
        .where(and(eq(messages.threadId, threadId), eq(messages.seq, seq)));
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
    expect(sentContents()).toEqual(["m0", "m1", "m2"]);
    const [answer] = await db
      .select({ content: messages.content })
      .from(messages)
      .where(and(eq(messages.threadId, threadId), eq(messages.seq, 3)));
    // Messages are never changed once stored; changing one behind the server's back shows which
    // rows the next run read from the database: none here. The run's answer (seq 3) and the
    // message added through this server (seq 4) were kept when they were stored.
    await changeBehind(0, "changed behind the server");
    expect(
      (await gw.call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: "m4" })).status,
    ).toBe(201);
    await changeBehind(3, "answer changed behind the server");
    await changeBehind(4, "m4 changed behind the server");
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
    const second = sentContents();
    expect(second).toHaveLength(5);
    expect(second[0]).toBe("m0");
    expect(second[3]).toBe(answer!.content);
    expect(second[4]).toBe("m4");
    // More than a page (64) added at once by another server (straight into the database, as its
    // add would): the rows between are not known here, so the thread is read again from the
    // newest down (the changed rows show now), in full and in order.
    const added = Array.from({ length: 150 }, (_, i) => ({
      id: `message_behind_${threadId}_${i}`,
      role: i % 2 ? "assistant" : "user",
      content: `b${i}`,
      i,
    }));
    await db.execute(sql`
      WITH t AS (UPDATE threads SET next_seq = next_seq + 150 WHERE id = ${threadId} RETURNING next_seq - 150 AS base)
      INSERT INTO messages (id, company_id, thread_id, role, content, seq)
      SELECT x.id, ${companyId}, ${threadId}, x.role, to_jsonb(x.content), t.base + x.i
      FROM t, jsonb_to_recordset(${JSON.stringify(added)}::jsonb) AS x(id text, role text, content text, i int)`);
    const third = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(third.status).toBe(200);
    const sent = sentContents();
    expect(sent).toHaveLength(156);
    expect(sent.slice(0, 5)).toEqual([
      "changed behind the server",
      "m1",
      "m2",
      "answer changed behind the server",
      "m4 changed behind the server",
    ]);
    expect(sent.slice(6)).toEqual(added.map((m) => m.content));
    const steps = await gw.call(key, "GET", `${runPath(threadId)}/${third.json.id}/steps`);
    expect(steps.json.data.find((s: { type: string }) => s.type === "history").detail).toMatchObject({
      messages_in_thread: 156,
      messages_sent: 156,
      messages_left_out: 0,
    });
    // A fourth run after one more message: the 156 read last time are kept; only the new ones are read.
    await changeBehind(0, "changed again");
    expect(
      (await gw.call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: "last" })).status,
    ).toBe(201);
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
    const fourth = sentContents();
    expect(fourth).toHaveLength(158);
    expect(fourth[0]).toBe("changed behind the server");
    expect(fourth.at(-1)).toBe("last");
  });
});
