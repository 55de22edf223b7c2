import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { messages, runs } from "@/db/schema";
import { INPUT_REFUSAL, OUTPUT_REFUSAL } from "@/lib/guardrails/refusals";
import { makeCompany, makeKey } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Guardrails end to end (CONTRACT 6): the rules API, and the rules applied to chat completions on
 * the production server, with the model at a fake upstream that echoes the last user message (so an
 * output rule can be aimed at the answer through the prompt). Each test makes its own company.
 */
let fake: FakeUpstream;
let server: RunningServer;

beforeAll(async () => {
  fake = await startFakeUpstream({
    usage: (_body, reply) => ({ prompt: 100, completion: reply.split(/\s+/).filter(Boolean).length }),
  });
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: "sk-upstream-test",
    GEMINI_API_KEY: "",
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.queue.length = 0;
});

async function newTenant(creditsOt = 100) {
  const company = await makeCompany(db, { creditsOt });
  const { secret } = await makeKey(db, { companyId: company.id });
  return { company, key: secret };
}

function call(key: string, method: string, path: string, body?: unknown) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function createRule(
  key: string,
  rule: { stage: string; type: string; pattern: string; action: string; name?: string },
) {
  const res = await call(key, "POST", "/v1/guardrails", {
    name: rule.name ?? `${rule.stage} ${rule.action} ${rule.pattern}`,
    stage: rule.stage,
    match: { type: rule.type, pattern: rule.pattern },
    action: rule.action,
  });
  expect(res.status).toBe(201);
  return res.json();
}

const complete = (key: string, body: Record<string, unknown>) =>
  call(key, "POST", "/v1/chat/completions", { model: "gpt-4o-mini", ...body });
const user = (content: unknown) => ({ role: "user", content });

function frames(text: string): any[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => f.slice("data: ".length))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}
const streamedText = (fs: any[]) =>
  fs
    .filter((f) => f !== "[DONE]" && f.choices?.[0]?.delta?.content)
    .map((f) => f.choices[0].delta.content)
    .join("");

async function completionEntries(key: string) {
  const res = await call(key, "GET", "/v1/usage");
  expect(res.status).toBe(200);
  return ((await res.json()).data as any[]).filter((e) => e.kind === "completion");
}

async function storedRun(companyId: string) {
  const [run] = await db.select().from(runs).where(eq(runs.companyId, companyId));
  expect(run).toBeDefined();
  const stored = await db
    .select()
    .from(messages)
    .where(eq(messages.threadId, run!.threadId))
    .orderBy(asc(messages.seq));
  return { run: run!, stored };
}

const applied = (rule: any, stage: string, action: string) => ({ id: rule.id, name: rule.name, action, stage });

describe("rules API", () => {
  it("creates (201), lists, updates, deletes", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, {
      name: "no secrets",
      stage: "input",
      type: "keyword",
      pattern: "secret",
      action: "block",
    });
    expect(rule).toMatchObject({
      object: "guardrail",
      name: "no secrets",
      stage: "input",
      match: { type: "keyword", pattern: "secret" },
      action: "block",
      is_active: true,
    });
    expect(rule.id).toMatch(/^gr_/);
    expect(typeof rule.created_at).toBe("number");

    const list = await (await call(key, "GET", "/v1/guardrails")).json();
    expect(list).toMatchObject({ object: "list", first_id: rule.id, last_id: rule.id, has_more: false });
    expect(list.data).toEqual([rule]);

    const patched = await call(key, "PATCH", `/v1/guardrails/${rule.id}`, {
      is_active: false,
      match: { type: "regex", pattern: "(?i)secret\\w*" },
      action: "redact",
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      id: rule.id,
      is_active: false,
      action: "redact",
      match: { type: "regex", pattern: "(?i)secret\\w*" },
      name: "no secrets",
    });

    const deleted = await call(key, "DELETE", `/v1/guardrails/${rule.id}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: rule.id, object: "guardrail", deleted: true });
    expect((await call(key, "GET", `/v1/guardrails/${rule.id}`)).status).toBe(404);
    expect((await (await call(key, "GET", "/v1/guardrails")).json()).data).toEqual([]);
  });

  it("another company's rule is 404 for get, patch and delete; lists are per company", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const rule = await createRule(a.key, { stage: "output", type: "keyword", pattern: "x", action: "flag" });
    for (const [method, body] of [["GET"], ["PATCH", { name: "mine" }], ["DELETE"]] as const) {
      const res = await call(b.key, method, `/v1/guardrails/${rule.id}`, body);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toMatchObject({ type: "not_found_error" });
    }
    expect((await (await call(b.key, "GET", "/v1/guardrails")).json()).data).toEqual([]);
    expect((await call(a.key, "GET", `/v1/guardrails/${rule.id}`)).status).toBe(200);
  });

  it("needs the chat scope", async () => {
    const company = await makeCompany(db);
    const { secret } = await makeKey(db, { companyId: company.id, scopes: ["view"] });
    const res = await call(secret, "GET", "/v1/guardrails");
    expect(res.status).toBe(403);
    expect((await res.json()).error.type).toBe("permission_error");
  });

  it("refuses invalid bodies with 400 naming the field", async () => {
    const { key } = await newTenant();
    const base = { name: "r", stage: "input", match: { type: "regex", pattern: "a" }, action: "block" };
    const cases: [unknown, string][] = [
      [{ ...base, stage: "middle" }, "stage"],
      [{ ...base, action: "delete" }, "action"],
      [{ ...base, name: "" }, "name"],
      [{ ...base, match: { type: "regex", pattern: "(a" } }, "match.pattern"],
      [{ ...base, match: { type: "regex", pattern: "(a)\\1" } }, "match.pattern"],
      [{ ...base, match: { type: "regex", pattern: "(?<=a)b" } }, "match.pattern"],
      [{ ...base, match: { type: "regex", pattern: ".*" } }, "match.pattern"],
      [{ ...base, match: { type: "regex", pattern: "a".repeat(501) } }, "match.pattern"],
      [{ ...base, match: { type: "glob", pattern: "a" } }, "match.type"],
      [{ ...base, match: { type: "keyword", pattern: "" } }, "match.pattern"],
      [{ ...base, extra: 1 }, "extra"],
    ];
    for (const [body, param] of cases) {
      const res = await call(key, "POST", "/v1/guardrails", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ type: "invalid_request_error", param });
    }
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "x", action: "flag" });
    const bad = await call(key, "PATCH", `/v1/guardrails/${rule.id}`, { match: { type: "regex", pattern: "[" } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe("match.pattern");
  });
});

describe("input rules on chat completions", () => {
  it("block: 200 with the refusal and content_filter, no upstream call, no bill, stored with applied_rules", async () => {
    const { company, key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "forbidden", action: "block" });
    const res = await complete(key, { messages: [user("tell me the FORBIDDEN thing")] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0]).toMatchObject({
      message: { role: "assistant", content: INPUT_REFUSAL },
      finish_reason: "content_filter",
    });
    expect(body.applied_rules).toEqual([applied(rule, "input", "block")]);
    expect(body.usage).toMatchObject({ prompt_tokens: 0, completion_tokens: 0 });
    expect(fake.requests).toHaveLength(0);
    expect(await completionEntries(key)).toEqual([]);
    const { run, stored } = await storedRun(company.id);
    expect(run).toMatchObject({
      status: "completed",
      finishReason: "content_filter",
      costMicro: 0,
      appliedRules: [applied(rule, "input", "block")],
    });
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["user", "tell me the FORBIDDEN thing"],
      ["assistant", INPUT_REFUSAL],
    ]);
  });

  it("block while streaming: the refusal in the stream, finish content_filter with applied_rules, no upstream call", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, {
      stage: "input",
      type: "regex",
      pattern: "(?i)drop\\s+table",
      action: "block",
    });
    const res = await complete(key, { messages: [user("please DROP  TABLE users")], stream: true });
    expect(res.status).toBe(200);
    const fs = frames(await res.text());
    expect(streamedText(fs)).toBe(INPUT_REFUSAL);
    const finish = fs.find((f) => f !== "[DONE]" && f.choices?.[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe("content_filter");
    expect(finish.applied_rules).toEqual([applied(rule, "input", "block")]);
    expect(fs.at(-1)).toBe("[DONE]");
    expect(fake.requests).toHaveLength(0);
    expect(await completionEntries(key)).toEqual([]);
  });

  it("redact: the model and the stored thread get [REDACTED] (system and user texts, text parts too)", async () => {
    const { company, key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "regex", pattern: "\\d{3}-\\d{4}", action: "redact" });
    const res = await complete(key, {
      messages: [
        { role: "system", content: "Support line 555-0000." },
        user([{ type: "text", text: "call me at 555-1234 or 555-9876" }]),
      ],
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.applied_rules).toEqual([applied(rule, "input", "redact")]);
    const sent = fake.requests[0]!.body.messages;
    expect(sent[0]).toMatchObject({ role: "system", content: "Support line [REDACTED]." });
    expect(JSON.stringify(sent[1].content)).toContain("call me at [REDACTED] or [REDACTED]");
    expect(JSON.stringify(sent)).not.toMatch(/555-/);
    expect(body.choices[0].message.content).toBe("Echo from gpt-4o-mini: call me at [REDACTED] or [REDACTED]");
    const { run, stored } = await storedRun(company.id);
    expect(JSON.stringify(stored.map((m) => m.content))).not.toMatch(/555-/);
    expect(run.appliedRules).toEqual([applied(rule, "input", "redact")]);
    expect(await completionEntries(key)).toHaveLength(1);
  });

  it("flag: recorded only; the prompt goes through unchanged and is billed", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "refund", action: "flag" });
    const body = await (await complete(key, { messages: [user("I want a Refund now")] })).json();
    expect(body.applied_rules).toEqual([applied(rule, "input", "flag")]);
    expect(body.choices[0]).toMatchObject({
      message: { content: "Echo from gpt-4o-mini: I want a Refund now" },
      finish_reason: "stop",
    });
    expect(fake.requests[0]!.body.messages.at(-1).content).toBe("I want a Refund now");
    expect(await completionEntries(key)).toHaveLength(1);
  });

  it("a rule switched off (PATCH) or deleted stops applying on the next call", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "stop", action: "block" });
    expect((await (await complete(key, { messages: [user("stop")] })).json()).choices[0].finish_reason).toBe(
      "content_filter",
    );
    await call(key, "PATCH", `/v1/guardrails/${rule.id}`, { is_active: false });
    const after = await (await complete(key, { messages: [user("stop")] })).json();
    expect(after.choices[0].finish_reason).toBe("stop");
    expect(after.applied_rules).toBeUndefined();
    await call(key, "PATCH", `/v1/guardrails/${rule.id}`, { is_active: true });
    expect((await (await complete(key, { messages: [user("stop")] })).json()).choices[0].finish_reason).toBe(
      "content_filter",
    );
    await call(key, "DELETE", `/v1/guardrails/${rule.id}`);
    expect((await (await complete(key, { messages: [user("stop")] })).json()).choices[0].finish_reason).toBe("stop");
  });
});

describe("output rules on chat completions", () => {
  it("block: the answer is replaced by the refusal, never returned or stored; the model call is billed", async () => {
    const { company, key } = await newTenant();
    const rule = await createRule(key, { stage: "output", type: "keyword", pattern: "launch codes", action: "block" });
    const res = await complete(key, { messages: [user("the launch codes are 1234")] });
    const body = await res.json();
    expect(body.choices[0]).toMatchObject({ message: { content: OUTPUT_REFUSAL }, finish_reason: "content_filter" });
    expect(body.applied_rules).toEqual([applied(rule, "output", "block")]);
    expect(fake.requests).toHaveLength(1);
    expect(await completionEntries(key)).toHaveLength(1);
    const { run, stored } = await storedRun(company.id);
    expect(run).toMatchObject({ finishReason: "content_filter", appliedRules: [applied(rule, "output", "block")] });
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: OUTPUT_REFUSAL });
    expect(JSON.stringify(stored.map((m) => m.content))).not.toContain("Echo from");
  });

  it("redact: the answer and the stored assistant message are redacted", async () => {
    const { company, key } = await newTenant();
    const rule = await createRule(key, {
      stage: "output",
      type: "regex",
      pattern: "sk-[A-Za-z0-9]{8,}",
      action: "redact",
    });
    const body = await (await complete(key, { messages: [user("my key is sk-abcdef123456")] })).json();
    expect(body.choices[0].message.content).toBe("Echo from gpt-4o-mini: my key is [REDACTED]");
    expect(body.applied_rules).toEqual([applied(rule, "output", "redact")]);
    // The model saw the prompt as given: the rule is an output rule.
    expect(fake.requests[0]!.body.messages.at(-1).content).toBe("my key is sk-abcdef123456");
    const { stored } = await storedRun(company.id);
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: "Echo from gpt-4o-mini: my key is [REDACTED]" });
  });

  it("streaming block: no byte of the blocked answer is sent", async () => {
    const { company, key } = await newTenant();
    const rule = await createRule(key, { stage: "output", type: "keyword", pattern: "launch codes", action: "block" });
    const res = await complete(key, {
      messages: [user("one two the launch codes three four")],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("Echo");
    const fs = frames(text);
    expect(streamedText(fs)).toBe(OUTPUT_REFUSAL);
    const finish = fs.find((f) => f !== "[DONE]" && f.choices?.[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe("content_filter");
    expect(finish.applied_rules).toEqual([applied(rule, "output", "block")]);
    expect(fs.at(-2).usage.completion_tokens).toBeGreaterThan(0);
    expect(fs.at(-1)).toBe("[DONE]");
    expect(await completionEntries(key)).toHaveLength(1);
    const { stored } = await storedRun(company.id);
    expect(stored.at(-1)).toMatchObject({ role: "assistant", content: OUTPUT_REFUSAL });
  });

  it("streaming redact and flag: the checked answer is sent, with applied_rules on the finish frame", async () => {
    const { key } = await newTenant();
    const redact = await createRule(key, { stage: "output", type: "keyword", pattern: "password", action: "redact" });
    const flag = await createRule(key, { stage: "output", type: "keyword", pattern: "echo", action: "flag" });
    const res = await complete(key, { messages: [user("the password is hunter2")], stream: true });
    const fs = frames(await res.text());
    expect(streamedText(fs)).toBe("Echo from gpt-4o-mini: the [REDACTED] is hunter2");
    const finish = fs.find((f) => f !== "[DONE]" && f.choices?.[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe("stop");
    expect(finish.applied_rules).toEqual([applied(redact, "output", "redact"), applied(flag, "output", "flag")]);
  });

  it("without output rules a stream passes through chunk by chunk (input rules do not hold it)", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "three", action: "flag" });
    const res = await complete(key, { messages: [user("one two three four five")], stream: true });
    const fs = frames(await res.text());
    expect(fs.filter((f) => f !== "[DONE]" && f.choices?.[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(streamedText(fs)).toBe("Echo from gpt-4o-mini: one two three four five");
    expect(fs.find((f) => f !== "[DONE]" && f.choices?.[0]?.finish_reason).applied_rules).toEqual([
      applied(rule, "input", "flag"),
    ]);
  });
});

describe("pathological regex", () => {
  // A backtracking engine needs about 2^n steps for `(a+)+$` on n a's and a b, and this text has a
  // thousand such runs. One very long run is checked in the unit test, where the tokenizer's cost
  // does not dominate.
  it("(a+)+$ on 42,000 characters of a-runs is answered within 1 s and the server stays responsive", async () => {
    const { key } = await newTenant();
    const input = await createRule(key, { stage: "input", type: "regex", pattern: "(a+)+$", action: "redact" });
    await createRule(key, { stage: "output", type: "regex", pattern: "(a+)+$", action: "block" });
    const text = ("a".repeat(40) + "b ").repeat(1000).trimEnd();
    const started = performance.now();
    const [res, probe] = await Promise.all([
      complete(key, { messages: [user(text)] }),
      (async () => {
        await new Promise((r) => setTimeout(r, 20));
        const t = performance.now();
        const r = await call(key, "GET", "/v1/guardrails");
        return { status: r.status, ms: performance.now() - t };
      })(),
    ]);
    const body = await res.json();
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    // `$` never follows an `a` here: nothing fires, the text goes through whole.
    expect(body.applied_rules).toBeUndefined();
    expect(body.choices[0].message.content).toBe(`Echo from gpt-4o-mini: ${text}`);
    expect(input.match.pattern).toBe("(a+)+$");
    expect(elapsed).toBeLessThan(1000);
    expect(probe.status).toBe(200);
    expect(probe.ms).toBeLessThan(1000);
  });
});

describe("Unicode disguises", () => {
  it("a keyword block catches fullwidth, look-alike, invisible and combining spellings; a redact edits the original", async () => {
    const { key } = await newTenant();
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "secret", action: "block" });
    for (const disguise of ["ｓｅｃｒｅｔ", "ѕecret", "se\u200bcret", "se\u00adcret", "se\u0301cret"]) {
      const body = await (await complete(key, { messages: [user(`tell me the ${disguise} now`)] })).json();
      expect(body.choices[0].finish_reason, JSON.stringify(disguise)).toBe("content_filter");
      expect(body.applied_rules).toEqual([applied(rule, "input", "block")]);
    }
    expect(fake.requests).toHaveLength(0);

    const other = await newTenant();
    await createRule(other.key, { stage: "input", type: "regex", pattern: "password=\\w+", action: "redact" });
    const res = await complete(other.key, { messages: [user("my ｐａｓｓｗｏｒｄ=hunter2 and pass\u200bword=x1 ok")] });
    expect(res.status).toBe(200);
    expect(fake.requests[0]!.body.messages.at(-1).content).toBe("my [REDACTED] and [REDACTED] ok");
  });
});

describe("large prompts", () => {
  /** The largest gap between answers of /api/health polled while `work` runs. */
  async function healthGapDuring(work: Promise<unknown>): Promise<number> {
    let done = false;
    void work.finally(() => (done = true));
    let last = performance.now();
    let worst = 0;
    while (!done) {
      await fetch(`${server.url}/api/health`);
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
      await new Promise((r) => setTimeout(r, 20));
    }
    return worst;
  }

  it("rules scan a 2.5 MB prompt off the event loop: the server keeps answering", async () => {
    const { key } = await newTenant(1000);
    for (const pattern of [
      "(?i)sk-[a-z0-9]{20,}",
      "(?i)api[_-]?key\\s*[:=]",
      "(?i)bearer\\s+[a-z0-9._-]{20,}",
      "\\b\\d{3}-\\d{2}-\\d{4}\\b",
    ]) {
      await createRule(key, { stage: "input", type: "regex", pattern, action: "flag" });
    }
    const rule = await createRule(key, { stage: "input", type: "keyword", pattern: "secret", action: "redact" });
    const text = "plain words and more plain words. ".repeat(75_000) + "the ѕecret";
    const res = complete(key, { model: "gpt-4.1-mini", messages: [user(text)] });
    const gap = await healthGapDuring(res);
    const body = await (await res).json();
    expect(body.applied_rules).toEqual([applied(rule, "input", "redact")]);
    expect(fake.requests[0]!.body.messages.at(-1).content.endsWith("the [REDACTED]")).toBe(true);
    // Scanned on the event loop, the four regexes and the fold held it for seconds.
    expect(gap).toBeLessThan(1000);
  });
});
