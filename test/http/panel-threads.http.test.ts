import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import type { RunStep } from "@/lib/runs";
import { makeCompany, makeRun, makeThread, makeUser } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { signInToPanel } from "../support/panel-sign-in";

/**
 * The panel's threads endpoints (/api/panel/threads/...) over real HTTP with an Auth.js session:
 * read-only, the session's company only (another company's thread or run is a 404), 401 without a
 * session. Rows are stored directly (factories), as the runs pipeline stores them.
 */
let server: RunningServer;

beforeAll(async () => {
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    LOG_LEVEL: "error",
  });
});

afterAll(async () => {
  await server?.stop();
});

async function tenant() {
  const company = await makeCompany(db);
  const { user, password } = await makeUser(db, { companyId: company.id });
  const cookie = await signInToPanel(server.url, user.email, password);
  return { company, cookie };
}

function panel(cookie: string | null, path: string, init: { method?: string } = {}) {
  const headers: Record<string, string> = { "sec-fetch-site": "same-origin" };
  if (cookie) headers.cookie = cookie;
  return fetch(`${server.url}${path}`, { method: init.method ?? "GET", headers });
}

async function json<T>(cookie: string, path: string): Promise<T> {
  const res = await panel(cookie, path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

interface List<T> {
  object: "list";
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
interface Thread {
  id: string;
  object: string;
  source: string;
  metadata: Record<string, unknown>;
  created_at: number;
}
interface Message {
  id: string;
  role: string;
  content: unknown;
  run_id: string | null;
}
interface Run {
  id: string;
  status: string;
  model: string;
  content: string;
  cost_ot: number;
  latency_ms: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  error: { code: string; message: string } | null;
}
interface Step {
  id: string;
  object: string;
  type: string;
  offset_ms: number;
  duration_ms: number;
  detail: Record<string, unknown>;
}

const STEPS: RunStep[] = [
  { type: "profiles", offset_ms: 0, duration_ms: 1.5, detail: { profiles: [{ id: "p1", name: "Support" }] } },
  { type: "history", offset_ms: 2, duration_ms: 3, detail: { messages: 2, tokens: 40 } },
  {
    type: "model_call",
    offset_ms: 6,
    duration_ms: 100,
    detail: { model: "local-mini", prompt_tokens: 12, completion_tokens: 5, retries: 0 },
  },
];

const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

describe("auth", () => {
  it("without a session every endpoint is a 401 in the OpenAI shape; writes are not routes at all", async () => {
    for (const path of [
      "/api/panel/threads",
      "/api/panel/threads/thread_x",
      "/api/panel/threads/thread_x/messages",
      "/api/panel/threads/thread_x/runs",
      "/api/panel/threads/thread_x/runs/run_x",
      "/api/panel/threads/thread_x/runs/run_x/steps",
    ]) {
      const res = await panel(null, path);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
    }
    const { cookie } = await tenant();
    expect((await panel(cookie, "/api/panel/threads", { method: "POST" })).status).toBe(405);
    expect((await panel(cookie, "/api/panel/threads/thread_x", { method: "DELETE" })).status).toBe(405);
  });
});

describe("/api/panel/threads", () => {
  it("the company's threads newest first, by source, paged; another company's never appear", async () => {
    const { company, cookie } = await tenant();
    const other = await makeCompany(db);
    await makeThread(db, { companyId: other.id });
    const api1 = await makeThread(db, { companyId: company.id, metadata: { customer: "acme" } });
    const completions = await makeThread(db, { companyId: company.id, source: "completions" });
    const webhook = await makeThread(db, { companyId: company.id, source: "webhook" });
    const api2 = await makeThread(db, { companyId: company.id });

    const all = await json<List<Thread>>(cookie, "/api/panel/threads");
    expect(all.data.map((t) => t.id)).toEqual([api2.id, webhook.id, completions.id, api1.id]);
    expect(all.data.at(-1)).toMatchObject({ object: "thread", source: "api", metadata: { customer: "acme" } });

    const apiOnly = await json<List<Thread>>(cookie, "/api/panel/threads?source=api");
    expect(apiOnly.data.map((t) => t.id)).toEqual([api2.id, api1.id]);
    expect((await json<List<Thread>>(cookie, "/api/panel/threads?source=webhook")).data.map((t) => t.id)).toEqual([
      webhook.id,
    ]);
    expect((await json<List<Thread>>(cookie, "/api/panel/threads?source=completions")).data.map((t) => t.id)).toEqual([
      completions.id,
    ]);

    const first = await json<List<Thread>>(cookie, "/api/panel/threads?limit=3");
    expect(first).toMatchObject({ has_more: true, last_id: completions.id });
    const second = await json<List<Thread>>(cookie, `/api/panel/threads?limit=3&after=${first.last_id}`);
    expect(second.data.map((t) => t.id)).toEqual([api1.id]);
    expect(second.has_more).toBe(false);

    const bad = await panel(cookie, "/api/panel/threads?source=email");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("source");
  });

  it("q searches the messages' text (company-scoped, wildcards literal, bounded); each thread has a preview", async () => {
    const { company, cookie } = await tenant();
    const other = await makeCompany(db);
    const tag = `t${Date.now().toString(36)}`;
    await makeThread(db, { companyId: other.id, messages: [{ role: "user", content: `parcel ${tag}` }] });
    const hit = await makeThread(db, {
      companyId: company.id,
      messages: [{ role: "user", content: `Where is my parcel? ${tag}` }],
    });
    await makeThread(db, { companyId: company.id, messages: [{ role: "user", content: "Refund please" }] });

    type Item = Thread & { preview: string | null; match: string | null };
    const found = await json<List<Item>>(cookie, `/api/panel/threads?q=${encodeURIComponent(`PARCEL? ${tag}`)}`);
    expect(found.data.map((t) => t.id)).toEqual([hit.id]);
    expect(found.data[0]).toMatchObject({ preview: `Where is my parcel? ${tag}`, match: `Where is my parcel? ${tag}` });
    const all = await json<List<Item>>(cookie, "/api/panel/threads");
    expect(all.data.map((t) => t.preview)).toEqual(["Refund please", `Where is my parcel? ${tag}`]);
    // "_" and "%" are not wildcards.
    expect((await json<List<Item>>(cookie, `/api/panel/threads?q=${encodeURIComponent("parcel_")}`)).data).toEqual([]);
    expect((await json<List<Item>>(cookie, `/api/panel/threads?q=${encodeURIComponent("%")}`)).data).toEqual([]);

    const long = await panel(cookie, `/api/panel/threads?q=${"a".repeat(201)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { param: string } }).error.param).toBe("q");
  });

  it("one thread by exact id; another company's thread is a 404 on every endpoint, its runs too", async () => {
    const { company, cookie } = await tenant();
    const mine = await makeThread(db, { companyId: company.id });
    expect(await json<Thread>(cookie, `/api/panel/threads/${mine.id}`)).toMatchObject({ id: mine.id, source: "api" });

    const other = await makeCompany(db);
    const theirs = await makeThread(db, { companyId: other.id, messages: [{ role: "user", content: "secret" }] });
    const theirRun = await makeRun(db, {
      companyId: other.id,
      threadId: theirs.id,
      steps: STEPS,
      answer: "their answer",
    });
    for (const path of [
      `/api/panel/threads/${theirs.id}`,
      `/api/panel/threads/${theirs.id}/messages`,
      `/api/panel/threads/${theirs.id}/runs`,
      `/api/panel/threads/${theirs.id}/runs/${theirRun.id}`,
      `/api/panel/threads/${theirs.id}/runs/${theirRun.id}/steps`,
      // Their run under my thread: the run is scoped by thread and company, not found either way.
      `/api/panel/threads/${mine.id}/runs/${theirRun.id}`,
      `/api/panel/threads/${mine.id}/runs/${theirRun.id}/steps`,
      "/api/panel/threads/thread_unknown",
    ]) {
      const res = await panel(cookie, path);
      expect(res.status, path).toBe(404);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("not_found_error");
      expect(body.error.message).not.toContain("secret");
    }
  });
});

describe("a thread's messages, runs and steps", () => {
  it("messages in order with image parts as stored and the run that added each; runs newest first with cost, latency, tokens; steps in order", async () => {
    const { company, cookie } = await tenant();
    const thread = await makeThread(db, {
      companyId: company.id,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image_url", image_url: { url: PNG } },
            { type: "image_url", image_url: { url: "https://images.example.test/cat.png" } },
          ],
        },
      ],
    });
    const older = await makeRun(db, {
      companyId: company.id,
      threadId: thread.id,
      status: "failed",
      steps: [STEPS[0]!],
      error: { code: "upstream_error", message: "upstream said no" },
      createdAt: new Date(Date.now() - 60_000),
    });
    const run = await makeRun(db, {
      companyId: company.id,
      threadId: thread.id,
      steps: STEPS,
      answer: "A red dot.",
      costOt: 0.375,
      latencyMs: 110,
    });

    const messages = await json<List<Message>>(cookie, `/api/panel/threads/${thread.id}/messages?order=asc`);
    expect(messages.data.map((m) => [m.role, m.run_id])).toEqual([
      ["user", null],
      ["assistant", run.id],
    ]);
    const parts = messages.data[0]!.content as { type: string; image_url?: { url: string } }[];
    expect(parts[0]).toEqual({ type: "text", text: "What is in this picture?" });
    // An inline image is kept as its digest, never its bytes; a URL image as its URL.
    expect(parts[1]!.image_url!.url).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(parts[2]!.image_url!.url).toBe("https://images.example.test/cat.png");
    expect(messages.data[1]!.content).toBe("A red dot.");

    const runs = await json<List<Run>>(cookie, `/api/panel/threads/${thread.id}/runs`);
    expect(runs.data.map((r) => r.id)).toEqual([run.id, older.id]);
    expect(runs.data[0]).toMatchObject({
      status: "completed",
      model: "local-mini",
      content: "A red dot.",
      cost_ot: 0.375,
      latency_ms: 110,
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
      error: null,
    });
    expect(runs.data[1]).toMatchObject({
      status: "failed",
      error: { code: "upstream_error", message: "upstream said no" },
    });
    expect(await json<Run>(cookie, `/api/panel/threads/${thread.id}/runs/${run.id}`)).toMatchObject({
      id: run.id,
      cost_ot: 0.375,
    });

    const steps = await json<List<Step>>(cookie, `/api/panel/threads/${thread.id}/runs/${run.id}/steps`);
    expect(steps.data.map((s) => s.type)).toEqual(["profiles", "history", "model_call"]);
    expect(steps.data[0]).toMatchObject({
      object: "run.step",
      offset_ms: 0,
      duration_ms: 1.5,
      detail: { profiles: [{ id: "p1", name: "Support" }] },
    });
    expect(steps.data[2]).toMatchObject({
      offset_ms: 6,
      duration_ms: 100,
      detail: { model: "local-mini", retries: 0 },
    });
    expect(new Set(steps.data.map((s) => s.id)).size).toBe(3);
    expect(
      (await json<List<Step>>(cookie, `/api/panel/threads/${thread.id}/runs/${older.id}/steps`)).data.map(
        (s) => s.type,
      ),
    ).toEqual(["profiles"]);
  });

  it("GET /threads renders the company's threads and opens the one named in ?thread=", async () => {
    const { company, cookie } = await tenant();
    const other = await makeCompany(db);
    const theirs = await makeThread(db, { companyId: other.id });
    const mine = await makeThread(db, { companyId: company.id, source: "completions" });
    const res = await panel(cookie, `/threads?thread=${mine.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(mine.id);
    expect(html).not.toContain(theirs.id);
  });
});
