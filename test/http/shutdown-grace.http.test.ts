import { randomBytes } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { activeRuns, companies, ledgerEntries, reservations, runs } from "@/db/schema";
import { makeCompany, makeKey } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * SIGTERM with calls running past SHUTDOWN_GRACE_MS: each is cancelled as a client cancel would be
 * (billed, thread and lease released) but its client is told (an error frame and `[DONE]`, a 503,
 * or a `cancelled` run); then the server exits. The upstream streams far longer than the grace.
 */
const GRACE_MS = 500;
/** The grace, the cancelled calls storing their bills, the shutdown hooks: well under the 20 s the streams would run. */
const EXIT_BOUND_MS = GRACE_MS + 8_000;

let fake: FakeUpstream;
let server: RunningServer | undefined;

beforeAll(async () => {
  // Streams run for 20 s; a call whose messages say "hold" gets no answer at all.
  fake = await startFakeUpstream({
    behaviourFor: (body: { messages?: unknown }) =>
      JSON.stringify(body.messages ?? "").includes("hold")
        ? { kind: "hang" }
        : { kind: "slow-stream", chunks: 200, intervalMs: 100 },
  });
});

afterAll(async () => {
  await server?.kill();
  await fake?.close();
});

/** Reads SSE frames until `enough` holds for what was read; the reader stays open. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  enough: (text: string) => boolean,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!enough(text)) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

const frames = (text: string) =>
  text
    .split("\n\n")
    .map((f) => f.trim())
    .filter((f) => f.startsWith("data: "))
    .map((f) => f.slice(6))
    .map((d) => (d === "[DONE]" ? d : (JSON.parse(d) as Record<string, unknown>)));

describe("SIGTERM past the grace period", () => {
  it("calls still running are cancelled: streams end with an error frame and [DONE], the rest answer 503 or cancelled; billed, threads and lease released, then exit", async () => {
    server = await startNextServer({
      AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
      OPENAI_BASE_URL: fake.openaiBase,
      OPENAI_API_KEY: "sk-test-openai",
      UPSTREAM_RETRIES: "0",
      LOG_LEVEL: "error",
      REDIS_URL: "",
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    const company = await makeCompany(db, { creditsOt: 100 });
    const key = (await makeKey(db, { companyId: company.id })).secret;
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const created = await fetch(`${server.url}/v1/threads`, {
      method: "POST",
      headers,
      body: JSON.stringify({ messages: [{ role: "user", content: "tell me a story" }] }),
    });
    expect(created.status).toBe(201);
    const threadId = ((await created.json()) as { id: string }).id;
    const held = await fetch(`${server.url}/v1/threads`, {
      method: "POST",
      headers,
      body: JSON.stringify({ messages: [{ role: "user", content: "hold on" }] }),
    });
    const heldThreadId = ((await held.json()) as { id: string }).id;

    const completion = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "tell me a long story" }],
        stream: true,
      }),
    });
    const run = await fetch(`${server.url}/v1/threads/${threadId}/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "gpt-4o-mini", stream: true }),
    });
    expect([completion.status, run.status]).toEqual([200, 200]);
    const readers = [completion.body!.getReader(), run.body!.getReader()];
    // Both are streaming: a few content pieces each.
    const seen = await Promise.all([
      readUntil(readers[0]!, (t) => (t.match(/"content":"[^"]+"/g) ?? []).length >= 3),
      readUntil(readers[1]!, (t) => (t.match(/"delta":"[^"]+"/g) ?? []).length >= 3),
    ]);
    // Two calls that wait for an answer: a completion and a run.
    const waiting = [
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hold on" }] }),
      }),
      fetch(`${server.url}/v1/threads/${heldThreadId}/runs`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: "gpt-4o-mini" }),
      }),
    ];
    const upstreamDeadline = Date.now() + 10_000;
    while (fake.requests.length < 4 && Date.now() < upstreamDeadline) await new Promise((r) => setTimeout(r, 50));
    expect(fake.requests).toHaveLength(4);
    expect((await db.select().from(activeRuns).where(eq(activeRuns.companyId, company.id))).length).toBe(2);

    const exited = new Promise<number>((resolve) => {
      const check = setInterval(() => {
        try {
          process.kill(server!.pid, 0);
        } catch {
          clearInterval(check);
          resolve(Date.now());
        }
      }, 50);
    });
    const signalledAt = Date.now();
    process.kill(server.pid, "SIGTERM");
    const rest = await Promise.all(readers.map((r) => readUntil(r, () => false)));
    const [answer, runAnswer] = await Promise.all(waiting);
    const exitedAt = await exited;
    console.log(`SIGTERM to exit: ${exitedAt - signalledAt} ms (grace ${GRACE_MS} ms)`);
    expect(exitedAt - signalledAt).toBeGreaterThanOrEqual(GRACE_MS);
    expect(exitedAt - signalledAt).toBeLessThan(EXIT_BOUND_MS);

    for (const [i, text] of seen.entries()) {
      const all = frames(text + rest[i]);
      expect(all.at(-1), `stream ${i}`).toBe("[DONE]");
      const error = all.at(-2) as { error?: { message?: unknown; type?: unknown } };
      expect(error.error, `stream ${i}`).toMatchObject({ message: expect.any(String), type: expect.any(String) });
    }

    expect(answer!.status).toBe(503);
    expect(((await answer!.json()) as { error: { code: string } }).error.code).toBe("server_shutdown");
    expect(runAnswer!.status).toBe(200);
    expect(((await runAnswer!.json()) as { status: string }).status).toBe("cancelled");

    // Each call stored as cancelled with what it generated, and billed for it once.
    const stored = await db.select().from(runs).where(eq(runs.companyId, company.id));
    expect(stored).toHaveLength(4);
    for (const r of stored) {
      expect(r.status).toBe("cancelled");
      expect(r.error).toMatchObject({ code: "server_shutdown" });
    }
    const streamed = stored.filter((r) => r.stream);
    expect(streamed).toHaveLength(2);
    for (const r of streamed) {
      expect(r.completionTokens).toBeGreaterThan(0);
      expect(r.costMicro).toBeGreaterThan(0);
    }
    const bills = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.companyId, company.id), ne(ledgerEntries.kind, "grant")));
    expect(bills).toHaveLength(stored.filter((r) => r.costMicro > 0).length);
    expect(bills.map((b) => b.completionTokens ?? 0).sort()).toEqual(
      stored
        .filter((r) => r.costMicro > 0)
        .map((r) => r.completionTokens)
        .sort(),
    );
    expect(bills.reduce((sum, b) => sum + b.amountMicro, 0)).toBe(-stored.reduce((sum, r) => sum + r.costMicro, 0));

    // Nothing left held: the thread, the lease, the company's reserved credit.
    expect(await db.select().from(activeRuns).where(eq(activeRuns.companyId, company.id))).toEqual([]);
    expect(
      await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.companyId, company.id), eq(reservations.status, "held"))),
    ).toEqual([]);
    const [row] = await db.select().from(companies).where(eq(companies.id, company.id));
    expect(row!.reservedMicro).toBe(0);
    expect(row!.balanceMicro).toBe(100_000_000 - stored.reduce((sum, r) => sum + r.costMicro, 0));
  }, 60_000);
});
