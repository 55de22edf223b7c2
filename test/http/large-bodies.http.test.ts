import http from "node:http";
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { ledgerEntries, runs } from "@/db/schema";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Large bodies as an attacker sent them: from a key over its limit, too large for the model's
 * context, and two large data: images. Event-loop and memory goals are measured by
 * bench/body-flood.ts; these tests pin the behaviour.
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

async function tenant(creditsOt: number, rpm?: number) {
  const company = await makeCompany(db, { creditsOt });
  const { secret } = await makeKey(db, { companyId: company.id, ...(rpm ? { rateLimitPerMinute: rpm } : {}) });
  return { companyId: company.id, key: secret };
}

function post(key: string, body: unknown) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * Sends the headers of a body of `declared` bytes and only its first `sent` bytes, then waits for
 * an answer: a server that reads the whole body before deciding never answers.
 */
function partialPost(key: string, declared: number, sent: Buffer): Promise<{ status: number; body: string }> {
  const url = new URL(`${server.url}/v1/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": declared },
      },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
        res.on("error", reject);
      },
    );
    req.on("error", () => {}); // the server may close the socket it will not read
    req.setTimeout(20_000, () => {
      req.destroy();
      reject(new Error("no answer before the body was sent"));
    });
    req.write(sent);
  });
}

const THIRTY_MIB = 30 * 1024 * 1024;

describe("finding 4: large bodies", () => {
  it("answers 429 to a key over its limit before reading its 30 MiB body", async () => {
    const { key } = await tenant(100, 1);
    expect(
      (await post(key, { model: "local-chat-latest", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }))
        .status,
    ).toBe(200);
    const start = Buffer.from(
      `{"model":"local-chat-latest","max_tokens":16,"messages":[{"role":"user","content":"${"a".repeat(1000)}`,
    );
    // The answer must come before the whole body has arrived.
    const res = await partialPost(key, THIRTY_MIB, start);
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body).error.type).toBe("rate_limit_error");
  });

  it("a body that stops arriving gives its share of the body budget back: 408 after the grace period", async () => {
    const { key } = await tenant(100);
    const start = Buffer.from(
      `{"model":"local-chat-latest","max_tokens":16,"messages":[{"role":"user","content":"${"a".repeat(1000)}`,
    );
    // Declares a large body, sends 1 KB, then nothing: the rate watchdog must free its share of the
    // body budget.
    const res = await partialPost(key, THIRTY_MIB, start);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error).toMatchObject({ type: "invalid_request_error", code: "body_too_slow" });
  });

  it("refuses a prompt that cannot fit the model's context window with 400 context_length_exceeded, before billing", async () => {
    const { companyId, key } = await tenant(100);
    const res = await post(key, {
      model: "local-chat-latest",
      max_tokens: 16,
      messages: [{ role: "user", content: "lorem ipsum ".repeat(THIRTY_MIB / 12) }],
    });
    // Refused before tokenizing the whole body on the event loop.
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      code: "context_length_exceeded",
      param: "messages",
    });
    expect(await db.select().from(runs).where(eq(runs.companyId, companyId))).toHaveLength(0);
  });

  it("also when the body is under the off-loop threshold but the prompt is past the window", async () => {
    const { key } = await tenant(100);
    // ~200k tokens in 800 KB: parsed on the event loop, tokenized in the worker with an early stop.
    const res = await post(key, {
      model: "local-mini",
      max_tokens: 16,
      messages: [{ role: "user", content: "lorem ipsum ".repeat(70_000) }],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("context_length_exceeded");
  });

  it("answers ten concurrent 30 MiB bodies, none with a 5xx other than a 503 for waiting too long", async () => {
    const { key } = await tenant(100);
    const big = {
      model: "local-chat-latest",
      max_tokens: 16,
      messages: [{ role: "user", content: "lorem ipsum ".repeat(THIRTY_MIB / 12) }],
    };
    // A body refused before it was read (503 after waiting its turn too long) may reach the client
    // as a broken upload (EPIPE) rather than the 503: both are fine; a 500 or a hang is not.
    const outcome = (e: unknown) =>
      /EPIPE|ECONNRESET/.test(String((e as Error).cause ?? e)) ? "refused early" : String(e);
    const statuses = await Promise.all(Array.from({ length: 10 }, () => post(key, big).then((r) => r.status, outcome)));
    for (const s of statuses) expect([400, 503, "refused early"]).toContain(s);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThan(0);
    // The server is still fine afterwards.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});

function pngDataUri(width: number, height: number, bytes: number): string {
  const head = Buffer.alloc(24);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write("IHDR", 12, "latin1");
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return `data:image/png;base64,${Buffer.concat([head, randomBytes(bytes - 24)]).toString("base64")}`;
}

describe("finding 5: images", () => {
  it("stores a hash and sizes instead of the image bytes, and bills images by the tile rule", async () => {
    const { companyId, key } = await tenant(100);
    const image = (i: number) => ({
      type: "image_url",
      image_url: { url: pngDataUri(1024, 1024, 10 * 1024 * 1024 + i) },
    });
    const res = await post(key, {
      model: "local-chat-latest",
      max_tokens: 16,
      messages: [{ role: "user", content: [{ type: "text", text: "what is here?" }, image(0), image(1)] }],
    });
    expect(res.status).toBe(200);
    const completion = await res.json();
    expect(completion.choices[0].message.content).toContain("2 images");
    // Old code: each image counted as 85 tokens; the rule gives 765 for 1024×1024 (4 tiles).
    expect(completion.usage.prompt_tokens).toBeGreaterThanOrEqual(2 * 765);
    const [usage] = (await db.execute(sql`
      SELECT sum(octet_length(m.content::text))::int AS bytes FROM messages m WHERE m.company_id = ${companyId}`)) as unknown as {
      bytes: number;
    }[];
    // Neither image is stored whole.
    expect(usage!.bytes).toBeLessThan(4096);
    const [stored] = (await db.execute(
      sql`SELECT content FROM messages WHERE company_id = ${companyId} AND role = 'user'`,
    )) as unknown as { content: any[] }[];
    expect(stored!.content[1].image_url).toMatchObject({
      mime_type: "image/png",
      width: 1024,
      height: 1024,
      size_bytes: 10 * 1024 * 1024,
    });
    expect(stored!.content[1].image_url.url).toMatch(/^sha256:[0-9a-f]{64}$/);
    const [bill] = await db
      .select()
      .from(ledgerEntries)
      .where(sql`${ledgerEntries.companyId} = ${companyId} AND ${ledgerEntries.kind} = 'completion'`);
    expect(bill!.promptTokens).toBe(completion.usage.prompt_tokens);
  });
});
