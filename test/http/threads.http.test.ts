import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { messages, threads } from "@/db/schema";
import { makeCompany, makeKey } from "../support/factories";
import { startNextServer, type RunningServer } from "../support/next-server";
import { encodeGrayPng } from "../support/png";

/**
 * Threads and messages over real HTTP against the production build (SPEC "Threads and runs",
 * CONTRACT 4, 5.1, 5.6, 6): bodies, statuses, scopes, isolation, pagination, bulk all-or-none,
 * seqs under concurrent adds, and what a thread stores of an image.
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

async function tenant(creditsOt = 0) {
  const company = await makeCompany(db, { creditsOt });
  const { secret } = await makeKey(db, { companyId: company.id });
  return { companyId: company.id, key: secret };
}

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function newThread(key: string, body: unknown = {}) {
  const res = await call(key, "POST", "/v1/threads", body);
  expect(res.status).toBe(201);
  return res.json.id as string;
}

/** Seqs as stored, in thread order (seq is not on the wire). */
async function storedSeqs(threadId: string) {
  return db
    .select({ id: messages.id, seq: messages.seq, content: messages.content })
    .from(messages)
    .where(eq(messages.threadId, threadId))
    .orderBy(asc(messages.seq));
}

const msgs = (n: number, prefix = "m") =>
  Array.from({ length: n }, (_, i) => ({ role: "user", content: `${prefix}${i}` }));

describe("/v1/threads over HTTP", () => {
  it("creates a thread (201, source api, metadata), reads it, lists it by source", async () => {
    const { key } = await tenant();
    const created = await call(key, "POST", "/v1/threads", {
      metadata: { customer: "acme", priority: 2, tags: ["a"] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(/^thread_/),
      object: "thread",
      created_at: expect.any(Number),
      metadata: { customer: "acme", priority: 2, tags: ["a"] },
      source: "api",
    });
    expect(Math.abs(created.json.created_at - Date.now() / 1000)).toBeLessThan(60);
    const got = await call(key, "GET", `/v1/threads/${created.json.id}`);
    expect(got).toMatchObject({ status: 200, json: created.json });

    // No body, an empty object and `metadata: null` all make a thread with `{}`.
    const bare = await fetch(`${server.url}/v1/threads`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    expect(bare.status).toBe(201);
    expect((await bare.json()).metadata).toEqual({});
    expect((await call(key, "POST", "/v1/threads", { metadata: null })).json.metadata).toEqual({});

    const api = await call(key, "GET", "/v1/threads?source=api");
    expect(api.status).toBe(200);
    expect(api.json.data.map((t: { id: string }) => t.id)).toContain(created.json.id);
    expect(api.json.data.every((t: { source: string }) => t.source === "api")).toBe(true);
    expect((await call(key, "GET", "/v1/threads?source=completions")).json.data).toEqual([]);
    expect((await call(key, "GET", "/v1/threads?source=webhook")).json).toMatchObject({
      object: "list",
      data: [],
      has_more: false,
    });
    const bad = await call(key, "GET", "/v1/threads?source=nope");
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: "invalid_request_error", param: "source" });
  });

  it("a message whose text is JSON comes back as the same text, never parsed (a JSON string once double-decoded)", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const texts = [
      '{"event_topic":"orders.created","payload":{"id":7}}',
      "42",
      '"quoted"',
      "[1,2]",
      "null",
      "plain words",
    ];
    const added = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, {
      messages: texts.map((content) => ({ role: "user", content })),
    });
    expect(added.status).toBe(201);
    expect(added.json.data.map((m: { content: unknown }) => m.content)).toEqual(texts);
    const listed = await call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
    expect(listed.json.data.map((m: { content: unknown }) => m.content)).toEqual(texts);
    expect((await storedSeqs(threadId)).map((m) => m.content)).toEqual(texts);
  });

  it("lists completions' throwaway threads beside api ones, and a completions thread takes new messages after its own", async () => {
    const { key } = await tenant(100);
    const apiThread = await newThread(key);
    const completion = await call(key, "POST", "/v1/chat/completions", {
      model: "local-chat-latest",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello" },
      ],
    });
    expect(completion.status).toBe(200);
    const all = await call(key, "GET", "/v1/threads");
    const bySource = Object.fromEntries(all.json.data.map((t: { id: string; source: string }) => [t.source, t.id]));
    expect(bySource.api).toBe(apiThread);
    const completionsThread = bySource.completions as string;
    expect(
      (await call(key, "GET", "/v1/threads?source=completions")).json.data.map((t: { id: string }) => t.id),
    ).toEqual([completionsThread]);

    const listed = await call(key, "GET", `/v1/threads/${completionsThread}/messages?order=asc`);
    expect(listed.json.data.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(listed.json.data[2].run_id).toMatch(/^run_/);
    expect(
      (await call(key, "POST", `/v1/threads/${completionsThread}/messages`, { role: "user", content: "more" })).status,
    ).toBe(201);
    expect((await storedSeqs(completionsThread)).map((r) => r.seq)).toEqual([0, 1, 2, 3]);
  });

  it("refuses metadata beyond 16 keys, 64-character keys, 512-character values, and unknown fields", async () => {
    const { key } = await tenant();
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"]));
    const cases: [unknown, string][] = [
      [{ metadata: tooMany }, "metadata"],
      [{ metadata: { ["k".repeat(65)]: "v" } }, `metadata.${"k".repeat(65)}`],
      [{ metadata: { note: "v".repeat(513) } }, "metadata.note"],
      [{ metadata: { deep: { text: "v".repeat(600) } } }, "metadata.deep"],
      [{ metadata: "nope" }, "metadata"],
      [{ metadata: { bad: "a\u0000b" } }, "metadata"],
      [{ nope: 1 }, ""],
    ];
    for (const [body, param] of cases) {
      const res = await call(key, "POST", "/v1/threads", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.error.type).toBe("invalid_request_error");
      if (param) expect(res.json.error.param).toBe(param);
    }
    const atLimit = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`${i}`.padEnd(64, "k"), "v".repeat(512)]));
    expect((await call(key, "POST", "/v1/threads", { metadata: atLimit })).status).toBe(201);
    expect((await call(key, "POST", "/v1/threads", "{not json")).status).toBe(400);
  });

  it("a key without `chat` gets 403 on every endpoint; no key 401", async () => {
    const { companyId, key } = await tenant();
    const threadId = await newThread(key);
    const { secret: viewOnly } = await makeKey(db, { companyId, scopes: ["view", "action", "admin"] });
    const calls: [string, string, unknown?][] = [
      ["GET", "/v1/threads"],
      ["POST", "/v1/threads", {}],
      ["GET", `/v1/threads/${threadId}`],
      ["POST", `/v1/threads/${threadId}/messages`, { role: "user", content: "x" }],
      ["GET", `/v1/threads/${threadId}/messages`],
      ["POST", `/v1/threads/${threadId}/messages/bulk`, { messages: msgs(1) }],
    ];
    for (const [method, path, body] of calls) {
      const res = await call(viewOnly, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.type).toBe("permission_error");
      expect((await call("sk-cp-invalid", method, path, body)).status).toBe(401);
    }
    expect(await storedSeqs(threadId)).toEqual([]);
  });

  it("another company's thread is 404 on every endpoint and untouched; so is an unknown id", async () => {
    const owner = await tenant();
    const other = await tenant();
    const threadId = await newThread(owner.key, { metadata: { a: "1" } });
    for (const id of [threadId, "thread_doesnotexist", "not-an-id"]) {
      const calls: [string, string, unknown?][] = [
        ["GET", `/v1/threads/${id}`],
        ["POST", `/v1/threads/${id}/messages`, { role: "user", content: "x" }],
        ["GET", `/v1/threads/${id}/messages`],
        ["POST", `/v1/threads/${id}/messages/bulk`, { messages: msgs(2) }],
      ];
      for (const [method, path, body] of calls) {
        const res = await call(other.key, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json.error).toMatchObject({ type: "not_found_error", code: "thread_not_found" });
      }
    }
    expect((await call(other.key, "GET", "/v1/threads")).json.data).toEqual([]);
    expect(await storedSeqs(threadId)).toEqual([]);
    const [row] = await db.select().from(threads).where(eq(threads.id, threadId));
    expect(row!.nextSeq).toBe(0);
  });

  it("adds one message: roles as given, string or parts content, 201 with the message body", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const plain = await call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: "Hello there" });
    expect(plain.status).toBe(201);
    expect(plain.json).toEqual({
      id: expect.stringMatching(/^msg_/),
      object: "thread.message",
      thread_id: threadId,
      role: "user",
      content: "Hello there",
      created_at: expect.any(Number),
      run_id: null,
    });
    const parts = [
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } },
      { type: "text", text: "" },
    ];
    const withParts = await call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: parts });
    expect(withParts.status).toBe(201);
    expect(withParts.json.content).toEqual(parts);
    for (const role of ["system", "assistant", "developer", "tool", "narrator"]) {
      expect(
        (await call(key, "POST", `/v1/threads/${threadId}/messages`, { role, content: `as ${role}` })).json.role,
      ).toBe(role);
    }
    const listed = await call(key, "GET", `/v1/threads/${threadId}/messages?order=asc`);
    expect(listed.json.data[0]).toEqual(plain.json);
    expect(listed.json.data[1]).toEqual(withParts.json);
    expect(listed.json.data.slice(2).map((m: { role: string }) => m.role)).toEqual([
      "system",
      "assistant",
      "developer",
      "tool",
      "narrator",
    ]);
  });

  it("refuses malformed messages with 400 in OpenAI's shape naming the field, storing nothing", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const cases: [unknown, string | null][] = [
      [{ content: "no role" }, "role"],
      [{ role: "", content: "empty role" }, "role"],
      [{ role: "user" }, "content"],
      [{ role: "user", content: 42 }, "content"],
      [{ role: "user", content: [] }, "content"],
      [{ role: "user", content: [{ type: "audio", audio: {} }] }, "content.0.type"],
      [{ role: "user", content: [{ type: "text" }] }, "content.0.text"],
      [{ role: "user", content: [{ type: "text", text: "x", extra: 1 }] }, "content.0"],
      [
        { role: "user", content: [{ type: "image_url", image_url: { url: "http://example.com/a.png" } }] },
        "content.0.image_url.url",
      ],
      [
        { role: "user", content: [{ type: "image_url", image_url: { url: "data:text/plain;base64,aGk=" } }] },
        "content.0.image_url.url",
      ],
      [
        { role: "user", content: [{ type: "image_url", image_url: { url: "https://e.com/a.png", detail: "max" } }] },
        "content.0.image_url.detail",
      ],
      [{ role: "user", content: "x", name: "extra" }, null],
    ];
    for (const [body, param] of cases) {
      const res = await call(key, "POST", `/v1/threads/${threadId}/messages`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", message: expect.any(String) });
      if (param) expect(res.json.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(await storedSeqs(threadId)).toEqual([]);
  });

  it("stores a data: image as its digest, never its bytes, small or parsed off the event loop", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const png = encodeGrayPng(40, 30, new Uint8Array(40 * 30).fill(200));
    const small = `data:image/png;base64,${png.toString("base64")}`;
    // Above 1 MiB the body is parsed and hashed in the CPU worker.
    const large = `data:image/png;base64,${Buffer.concat([png, randomBytes(1_200_000)]).toString("base64")}`;
    for (const url of [small, large]) {
      const res = await call(key, "POST", `/v1/threads/${threadId}/messages`, {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url, detail: "high" } },
        ],
      });
      expect(res.status).toBe(201);
      const image = res.json.content[1].image_url;
      expect(image).toMatchObject({
        url: `sha256:${createHash("sha256").update(url).digest("hex")}`,
        mime_type: "image/png",
        size_bytes: Buffer.from(url.slice(url.indexOf(",") + 1), "base64").length,
        width: 40,
        height: 30,
        detail: "high",
      });
      expect(JSON.stringify(res.json).length).toBeLessThan(1000);
    }
    const stored = await storedSeqs(threadId);
    expect(stored).toHaveLength(2);
    expect(JSON.stringify(stored).includes(png.toString("base64").slice(0, 40))).toBe(false);
    // The bulk path hashes per message and part too.
    const bulk = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, {
      messages: [
        { role: "user", content: "first" },
        { role: "user", content: [{ type: "image_url", image_url: { url: large } }] },
      ],
    });
    expect(bulk.status).toBe(201);
    expect(bulk.json.data[1].content[0].image_url.url).toBe(
      `sha256:${createHash("sha256").update(large).digest("hex")}`,
    );
    // A malformed data: URI in a large body is refused by the worker, naming the part.
    const broken = await call(key, "POST", `/v1/threads/${threadId}/messages`, {
      role: "user",
      content: [{ type: "image_url", image_url: { url: `${large.slice(0, -10)}!!!` } }],
    });
    expect(broken.status).toBe(400);
    expect(broken.json.error.param).toBe("content.0.image_url.url");
    expect(await storedSeqs(threadId)).toHaveLength(4);
  });

  it("bulk: 1 to 100 messages, 201 with the stored list in order; one bad message or 101 stores nothing", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const ok = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, {
      messages: [
        { role: "system", content: "Rules." },
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: "a" },
      ],
    });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({
      object: "list",
      has_more: false,
      first_id: ok.json.data[0].id,
      last_id: ok.json.data[2].id,
    });
    expect(ok.json.data.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(ok.json.data[0]).toMatchObject({ object: "thread.message", thread_id: threadId, run_id: null });

    const badOne = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, {
      messages: [
        ...msgs(5),
        { role: "user", content: [{ type: "image_url", image_url: { url: "ftp://x" } }] },
        ...msgs(3),
      ],
    });
    expect(badOne.status).toBe(400);
    expect(badOne.json.error).toMatchObject({
      type: "invalid_request_error",
      param: "messages.5.content.0.image_url.url",
    });
    const tooMany = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: msgs(101) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error.param).toBe("messages");
    expect((await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: [] })).status).toBe(400);
    expect((await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, {})).status).toBe(400);
    expect((await storedSeqs(threadId)).map((r) => r.seq)).toEqual([0, 1, 2]);

    const hundred = await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: msgs(100, "h") });
    expect(hundred.status).toBe(201);
    expect(hundred.json.data.map((m: { content: string }) => m.content)).toEqual(msgs(100, "h").map((m) => m.content));
    expect((await storedSeqs(threadId)).map((r) => r.seq)).toEqual(Array.from({ length: 103 }, (_, i) => i));
  });

  it("a thread created with messages stores them with it; a bad one leaves no thread", async () => {
    const { companyId, key } = await tenant();
    const created = await call(key, "POST", "/v1/threads", { metadata: { k: "v" }, messages: msgs(3) });
    expect(created.status).toBe(201);
    expect((await storedSeqs(created.json.id)).map((r) => r.content)).toEqual(["m0", "m1", "m2"]);
    const bad = await call(key, "POST", "/v1/threads", { messages: [{ role: "user", content: 1 }] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("messages.0.content");
    expect(await db.select({ id: threads.id }).from(threads).where(eq(threads.companyId, companyId))).toHaveLength(1);
  });

  it("pages messages both ways with limit, after and has_more (CONTRACT 4 list envelope)", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    expect((await call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: msgs(25) })).status).toBe(201);
    const all = msgs(25).map((m) => m.content);

    const page = async (q: string) => {
      const res = await call(key, "GET", `/v1/threads/${threadId}/messages${q}`);
      expect(res.status, q).toBe(200);
      return res.json as {
        object: string;
        data: { id: string; content: string }[];
        first_id: string | null;
        last_id: string | null;
        has_more: boolean;
      };
    };
    const first = await page("");
    expect(first).toMatchObject({ object: "list", has_more: true });
    expect(first.data.map((m) => m.content)).toEqual([...all].reverse().slice(0, 20));
    expect(first.first_id).toBe(first.data[0]!.id);
    expect(first.last_id).toBe(first.data[19]!.id);
    const rest = await page(`?after=${first.last_id}`);
    expect(rest.has_more).toBe(false);
    expect(rest.data.map((m) => m.content)).toEqual([...all].reverse().slice(20));

    const seen: string[] = [];
    let after = "";
    const hasMore: boolean[] = [];
    for (;;) {
      const p = await page(`?order=asc&limit=10${after ? `&after=${after}` : ""}`);
      seen.push(...p.data.map((m) => m.content));
      hasMore.push(p.has_more);
      if (!p.has_more) break;
      after = p.last_id!;
    }
    expect(seen).toEqual(all);
    expect(hasMore).toEqual([true, true, false]);
    const exact = await page("?order=asc&limit=25");
    expect(exact.has_more).toBe(false);
    expect(exact.data).toHaveLength(25);
    const last = await page(`?order=asc&after=${exact.last_id}`);
    expect(last).toMatchObject({ data: [], first_id: null, last_id: null, has_more: false });

    for (const q of ["?limit=0", "?limit=101", "?limit=x", "?order=sideways", "?after=msg_unknown"]) {
      const res = await call(key, "GET", `/v1/threads/${threadId}/messages${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.error.type).toBe("invalid_request_error");
    }
    // A message of another thread is not a cursor here.
    const otherThread = await newThread(key);
    const foreign = await call(key, "POST", `/v1/threads/${otherThread}/messages`, { role: "user", content: "x" });
    expect((await call(key, "GET", `/v1/threads/${threadId}/messages?after=${foreign.json.id}`)).json.error.param).toBe(
      "after",
    );
    expect((await page("?limit=100")).data).toHaveLength(25);
  });

  it("20 concurrent adds and 5 concurrent bulk adds get distinct seqs; each bulk stays one contiguous block in order", async () => {
    const { key } = await tenant();
    const threadId = await newThread(key);
    const singles = Array.from({ length: 20 }, (_, i) =>
      call(key, "POST", `/v1/threads/${threadId}/messages`, { role: "user", content: `s${i}` }),
    );
    const bulks = Array.from({ length: 5 }, (_, b) =>
      call(key, "POST", `/v1/threads/${threadId}/messages/bulk`, { messages: msgs(5, `b${b}-`) }),
    );
    const results = await Promise.all([...singles, ...bulks]);
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));

    const stored = await storedSeqs(threadId);
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 45 }, (_, i) => i));
    expect(new Set(stored.map((r) => r.id)).size).toBe(45);
    const order = stored.map((r) => r.content as string);
    expect(order.filter((c) => c.startsWith("s")).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`).sort());
    for (let b = 0; b < 5; b++) {
      const start = order.indexOf(`b${b}-0`);
      expect(order.slice(start, start + 5)).toEqual(msgs(5, `b${b}-`).map((m) => m.content));
    }
    // The API lists exactly the stored order.
    const listed = await call(key, "GET", `/v1/threads/${threadId}/messages?order=asc&limit=100`);
    expect(listed.json.data.map((m: { content: string }) => m.content)).toEqual(order);
    const [row] = await db
      .select()
      .from(threads)
      .where(and(eq(threads.id, threadId)));
    expect(row!.nextSeq).toBe(45);
  });
});
