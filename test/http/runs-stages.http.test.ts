import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { companies, ledgerEntries } from "@/db/schema";
import { INPUT_REFUSAL, OUTPUT_REFUSAL } from "@/lib/guardrails/refusals";
import { startNextServer, type RunningServer } from "../support/next-server";
import { renderTextPng } from "../support/png";
import { sseData, useGateway } from "../support/gateway";

/**
 * The stages of a run over real HTTP against the production build, with a fake upstream on
 * loopback that echoes the last user message (CONTRACT 6): guardrails (input and output, each
 * action), images through the multimodal stage, a run on a server that crashes (failed by the
 * reconciler of another server) or is cancelled through another server, and the steps a run
 * records in order.
 */
const gw = useGateway({
  fake: { usage: (_body, reply) => ({ prompt: 50, completion: reply.split(/\s+/).filter(Boolean).length }) },
});
/** Servers a test started besides the gateway's; stopped after it whatever happened. */
const extra: RunningServer[] = [];

afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.kill()));
});

async function createRule(key: string, rule: { stage: string; type: string; pattern: string; action: string }) {
  const res = await gw.call(key, "POST", "/v1/guardrails", {
    name: `${rule.stage} ${rule.action} ${rule.pattern}`,
    stage: rule.stage,
    match: { type: rule.type, pattern: rule.pattern },
    action: rule.action,
  });
  expect(res.status).toBe(201);
  return res.json as { id: string; name: string };
}

const applied = (rule: { id: string; name: string }, stage: string, action: string) => ({
  id: rule.id,
  name: rule.name,
  action,
  stage,
});

const runPath = (threadId: string) => `/v1/threads/${threadId}/runs`;

async function stepsOf(key: string, threadId: string, runId: string) {
  const res = await gw.call(key, "GET", `${runPath(threadId)}/${runId}/steps`);
  expect(res.status).toBe(200);
  return res.json.data as {
    id: string;
    object: string;
    type: string;
    started_at: number;
    offset_ms: number;
    duration_ms: number;
    detail: any;
  }[];
}

async function storedTexts(key: string, threadId: string) {
  const res = await gw.call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
  expect(res.status).toBe(200);
  return res.json.data as { role: string; content: unknown }[];
}

const ledgerOf = (runId: string) => db.select().from(ledgerEntries).where(eq(ledgerEntries.referenceId, runId));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The thread's in-progress run id, polled (the run is started by a request still in flight). */
async function inProgressRun(key: string, threadId: string, base = gw.server.url): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const list = await gw.call(key, "GET", runPath(threadId), undefined, base);
    const id = (list.json.data as { id: string; status: string }[]).find((r) => r.status === "in_progress")?.id;
    if (id) return id;
    await sleep(50);
  }
  throw new Error("no run went in_progress within 10 s");
}

/** Waits until the fake upstream has received `n` requests. */
async function upstreamReached(n: number): Promise<void> {
  for (let i = 0; i < 250 && gw.fake.requests.length < n; i++) await sleep(20);
  expect(gw.fake.requests).toHaveLength(n);
}

const textImage = (lines: string[]) => `data:image/png;base64,${renderTextPng(lines).png.toString("base64")}`;

describe("guardrails on runs", () => {
  it("input block: 200 completed with the refusal and the rule, no upstream call, no ledger entry, a guardrail step", async () => {
    const { key } = await gw.tenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "forbidden", action: "block" });
    const threadId = await gw.thread(key, [{ role: "user", content: "tell me the forbidden thing" }]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "completed", content: INPUT_REFUSAL, error: null });
    expect(res.json.applied_rules).toEqual([applied(rule, "input", "block")]);
    expect(gw.fake.requests).toHaveLength(0);
    expect(await ledgerOf(res.json.id)).toHaveLength(0);
    const steps = await stepsOf(key, threadId, res.json.id);
    const guard = steps.find((s) => s.type === "guardrail");
    expect(guard?.detail).toMatchObject({
      stage: "input",
      blocked: true,
      rules: [{ id: rule.id, action: "block", result: "fired" }],
    });
    expect(steps.map((s) => s.type)).not.toContain("model_call");
    // The thread is released.
    expect((await gw.call(key, "GET", `${runPath(threadId)}/${res.json.id}`)).json.status).toBe("completed");
  });

  it("input redact: the upstream gets [REDACTED] in place of the match, the stored message is unchanged, applied_rules lists it", async () => {
    const { key } = await gw.tenant();
    const rule = await createRule(key, { stage: "input", type: "regex", pattern: "\\d{3}-\\d{4}", action: "redact" });
    const said = "call me at 555-1234 please";
    const threadId = await gw.thread(key, [{ role: "user", content: said }]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("completed");
    expect(res.json.applied_rules).toEqual([applied(rule, "input", "redact")]);
    expect(gw.fake.requests).toHaveLength(1);
    const sent = gw.fake.requests[0]!.body.messages.at(-1);
    expect(sent).toEqual({ role: "user", content: "call me at [REDACTED] please" });
    expect(JSON.stringify(gw.fake.requests[0]!.body)).not.toContain("555-1234");
    const stored = await storedTexts(key, threadId);
    expect(stored[0]).toMatchObject({ role: "user", content: said });
  });

  it("input flag: applied_rules lists it and the text reaches the upstream unchanged", async () => {
    const { key } = await gw.tenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "refund", action: "flag" });
    const said = "I want a refund for my order";
    const threadId = await gw.thread(key, [{ role: "user", content: said }]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(200);
    expect(res.json.applied_rules).toEqual([applied(rule, "input", "flag")]);
    expect(gw.fake.requests).toHaveLength(1);
    expect(gw.fake.requests[0]!.body.messages.at(-1)).toEqual({ role: "user", content: said });
    expect(res.json.content).toBe(`Echo from gpt-4o-mini: ${said}`);
  });

  it("output block: the answer is replaced by the refusal, never returned or stored; the model call is billed", async () => {
    const { key } = await gw.tenant();
    const rule = await createRule(key, { stage: "output", type: "keyword", pattern: "launch codes", action: "block" });
    const threadId = await gw.thread(key, [{ role: "user", content: "the launch codes are 1234" }]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "completed", content: OUTPUT_REFUSAL });
    expect(res.json.applied_rules).toEqual([applied(rule, "output", "block")]);
    expect(gw.fake.requests).toHaveLength(1);
    const stored = await storedTexts(key, threadId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[1]!.content).toBe(OUTPUT_REFUSAL);
    expect(JSON.stringify(stored)).not.toContain("Echo from");
    const [entry, ...more] = await ledgerOf(res.json.id);
    expect(more).toHaveLength(0);
    expect(entry!.amountMicro).toBeLessThan(0);
    expect(entry!.completionTokens).toBeGreaterThan(0);
    expect(res.json.cost_ot).toBeGreaterThan(0);
  });

  it("output redact on a streaming run: the deltas carry [REDACTED] and never the matched word", async () => {
    const { key } = await gw.tenant();
    const rule = await createRule(key, { stage: "output", type: "keyword", pattern: "password", action: "redact" });
    const threadId = await gw.thread(key, [{ role: "user", content: "the password is hunter2" }]);
    const res = await fetch(`${gw.server.url}${runPath(threadId)}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true }),
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-run-id")!;
    const all = await sseData(res);
    expect(all.at(-1)).toBe("[DONE]");
    expect((all.at(-2) as { done: boolean }).done).toBe(true);
    const text = (all.slice(0, -2) as { delta: string }[]).map((d) => d.delta).join("");
    expect(text).toContain("[REDACTED]");
    expect(text).not.toMatch(/password/i);
    expect(text).toBe("Echo from gpt-4o-mini: the [REDACTED] is hunter2");
    const got = await gw.call(key, "GET", `${runPath(threadId)}/${runId}`);
    expect(got.json).toMatchObject({ status: "completed", content: text });
    expect(got.json.applied_rules).toEqual([applied(rule, "output", "redact")]);
    const stored = await storedTexts(key, threadId);
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: text });
  });

  it("(a+)+$ on a 100,000-character aaaa…b message: the run answers within 1 s", async () => {
    const { key } = await gw.tenant();
    await createRule(key, { stage: "input", type: "regex", pattern: "(a+)+$", action: "redact" });
    await createRule(key, { stage: "output", type: "regex", pattern: "(a+)+$", action: "block" });
    const said = `${"a".repeat(99_999)}b`;
    const threadId = await gw.thread(key, [{ role: "user", content: said }]);
    const started = performance.now();
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("completed");
    // `$` never follows an `a`: nothing fires, and the text goes through whole.
    expect(res.json.applied_rules).toEqual([]);
    expect(gw.fake.requests[0]!.body.messages.at(-1).content).toBe(said);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe("images on runs", () => {
  it("local-mini reads a stored data: image: the answer says 1 image with the OCR text, and a multimodal step carries the text", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [
      {
        role: "user",
        content: [
          { type: "text", text: "what does it say?" },
          { type: "image_url", image_url: { url: textImage(["HELLO WORLD"]) } },
        ],
      },
    ]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "local-mini" });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe("completed");
    expect(res.json.content).toContain("1 image");
    expect(res.json.content).toMatch(/HELLO\s+WORLD/);
    expect(gw.fake.requests).toHaveLength(0);
    const steps = await stepsOf(key, threadId, res.json.id);
    const mm = steps.find((s) => s.type === "multimodal");
    expect(mm?.detail).toMatchObject({ handling: "local_description", images: [{ source: "data_uri" }] });
    expect(mm!.detail.images[0].text).toMatch(/HELLO\s+WORLD/);
  });

  it("enable_multimodal: false with a model without image input: 400 naming the problem, nothing sent, thread released", async () => {
    const { key } = await gw.tenant();
    const threadId = await gw.thread(key, [
      {
        role: "user",
        content: [
          { type: "text", text: "what does it say?" },
          { type: "image_url", image_url: { url: textImage(["HI"]) } },
        ],
      },
    ]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "gpt-3.5-turbo", enable_multimodal: false });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "model_not_multimodal" });
    expect(res.json.error.message).toMatch(/gpt-3\.5-turbo/);
    expect(res.json.error.message).toMatch(/enable_multimodal/);
    expect(gw.fake.requests).toHaveLength(0);
    expect((await gw.call(key, "POST", runPath(threadId), { model: "local-mini" })).status).toBe(200);
  });
});

describe("runs across servers", () => {
  it("a run on a server killed with SIGKILL is failed (server_lost) within 10 s, and the thread takes a new run", async () => {
    const { key, companyId } = await gw.tenant();
    const server2 = await startNextServer(gw.env);
    extra.push(server2);
    const threadId = await gw.thread(key, [{ role: "user", content: "never answered" }]);
    gw.fake.queue.push({ kind: "hang" });
    const pending = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" }, server2.url).catch(() => null);
    const runId = await inProgressRun(key, threadId, server2.url);
    // Killed while waiting on the upstream (else the queued hang would stall a later call).
    await upstreamReached(1);
    await server2.kill();
    await pending;
    const killedAt = Date.now();
    let run: { status: string; error: { code: string } | null } | undefined;
    while (Date.now() - killedAt < 10_000) {
      run = (await gw.call(key, "GET", `${runPath(threadId)}/${runId}`)).json;
      if (run!.status !== "in_progress") break;
      await sleep(100);
    }
    expect(run).toMatchObject({ status: "failed", error: { code: "server_lost" } });
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    // The dead server's credit hold is given back in the same reconciler pass.
    let reserved = -1;
    for (let i = 0; i < 50 && reserved !== 0; i++) {
      if (i > 0) await sleep(100);
      reserved = (
        await db.select({ r: companies.reservedMicro }).from(companies).where(eq(companies.id, companyId))
      )[0]!.r;
    }
    expect(reserved).toBe(0);
    const next = await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" });
    expect(next.status).toBe(200);
    expect(next.json.status).toBe("completed");
  });

  it("cancel through server 1 of a run executing on server 2: 200 cancelled in under 1 s, the upstream request aborted", async () => {
    const { key } = await gw.tenant();
    const server2 = await startNextServer(gw.env);
    extra.push(server2);
    const threadId = await gw.thread(key, [{ role: "user", content: "slow one" }]);
    gw.fake.queue.push({ kind: "delay", ms: 30_000 });
    const started = gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" }, server2.url);
    const runId = await inProgressRun(key, threadId, server2.url);
    // The upstream request is out before the cancel.
    await upstreamReached(1);
    const t0 = performance.now();
    const cancelled = await gw.call(key, "POST", `${runPath(threadId)}/${runId}/cancel`);
    const took = performance.now() - t0;
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ id: runId, status: "cancelled", error: null });
    expect(took).toBeLessThan(1000);
    // Server 2 aborted its upstream fetch before storing the run; the socket's close reaches the
    // fake a moment later.
    for (let i = 0; i < 25 && gw.fake.requests[0]!.abortedAt === undefined; i++) await sleep(20);
    expect(gw.fake.requests[0]!.abortedAt).toBeDefined();
    const answer = await started;
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: runId, status: "cancelled" });
    expect((await gw.call(key, "POST", runPath(threadId), { model: "gpt-4o-mini" })).status).toBe(200);
  });
});

describe("run steps", () => {
  it("a run with a profile, a guardrail rule and an image records profiles, history, guardrail, multimodal, model_call in order", async () => {
    const { key } = await gw.tenant();
    const profile = await gw.call(key, "POST", "/v1/profiles", {
      name: "reader",
      system_prompt: "Read images carefully.",
    });
    expect(profile.status).toBe(201);
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "say", action: "flag" });
    const threadId = await gw.thread(key, [
      {
        role: "user",
        content: [
          { type: "text", text: "what does it say?" },
          { type: "image_url", image_url: { url: textImage(["TOTAL 1234"]) } },
        ],
      },
    ]);
    const res = await gw.call(key, "POST", runPath(threadId), { model: "local-mini", profile_ids: [profile.json.id] });
    expect(res.status).toBe(200);
    expect(res.json.applied_rules).toEqual([applied(rule, "input", "flag")]);
    const steps = await stepsOf(key, threadId, res.json.id);
    expect(steps.map((s) => s.type)).toEqual(["profiles", "history", "guardrail", "multimodal", "model_call"]);
    for (const [i, s] of steps.entries()) {
      expect(s).toMatchObject({
        id: expect.stringMatching(/^step_/),
        object: "run.step",
        type: expect.any(String),
        started_at: expect.any(Number),
        duration_ms: expect.any(Number),
        detail: expect.any(Object),
      });
      if (i > 0) expect(s.offset_ms).toBeGreaterThanOrEqual(steps[i - 1]!.offset_ms);
    }
    expect(new Set(steps.map((s) => s.id)).size).toBe(steps.length);
    expect(steps[0]!.detail.profiles).toEqual([{ id: profile.json.id, name: "reader" }]);
    expect(steps[2]!.detail).toMatchObject({ stage: "input", rules: [{ id: rule.id, result: "fired" }] });
    expect(steps[3]!.detail.images[0].text).toMatch(/TOTAL\s+1234/);
    expect(steps[4]!.detail).toMatchObject({ model: "local-mini" });
  });
});
