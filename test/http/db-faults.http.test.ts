import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { chunkFor } from "@/lib/rate-limit/grant-policy";
import { makeCompany, makeKey } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * PostgreSQL outages under load, injected with a TCP proxy in front of the shared server. Every
 * call through the cut is answered 200 or 503 with Retry-After quickly, the first 200 follows the
 * cut's end promptly, every 200 is billed exactly once (outage bills come from the journal) and no
 * refused call is billed.
 */
const CLIENTS = 20;
const APP_NAME = `fault-${randomBytes(4).toString("hex")}`;

let upstream: FakeUpstream;
let proxy: TcpProxy;
let server: RunningServer;
/** Every server of this file runs with this (the same secret and database URL: a successor adopts its predecessor's journal). */
let serverEnv: Record<string, string>;

function throughProxy(): string {
  const url = new URL(proxy.url(process.env.DATABASE_URL!));
  url.searchParams.set("application_name", APP_NAME);
  return url.toString();
}

beforeAll(async () => {
  upstream = await startFakeUpstream();
  const target = new URL(process.env.DATABASE_URL!);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  serverEnv = {
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    DATABASE_URL: throughProxy(),
    OPENAI_BASE_URL: upstream.openaiBase,
    OPENAI_API_KEY: "sk-up",
    UPSTREAM_RETRIES: "0",
    // Rate limits counted in PostgreSQL, through the proxy.
    REDIS_URL: "",
    LOG_LEVEL: "warn",
  };
  server = await startNextServer(serverEnv);
});

afterAll(async () => {
  await server?.stop();
  await proxy?.close();
  await upstream?.close();
});

async function tenant() {
  const company = await makeCompany(db, { creditsOt: 1_000_000 });
  const { key, secret } = await makeKey(db, { companyId: company.id, rateLimitPerMinute: 100_000 });
  return { companyId: company.id, key: secret, keyId: key.id };
}

/** The proxy's cut (loseReplyAfter) happened within 5 s. */
const cutWithin = (cut: Promise<void>) =>
  expect(Promise.race([cut.then(() => "cut"), new Promise((r) => setTimeout(() => r("no cut"), 5_000))])).resolves.toBe(
    "cut",
  );

interface Answer {
  status: number;
  retryAfter: string | null;
  /** Time to the whole answer (JSON) or to the response head (stream). */
  ms: number;
  startedAt: number;
  endedAt: number;
  id?: string;
  stream: boolean;
  /** Streams: ended with `data: [DONE]`. */
  done?: boolean;
  body?: string;
}

async function call(key: string, stream: boolean, n: number | string): Promise<Answer> {
  const startedAt = Date.now();
  const res = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: `call ${n}` }],
      stream,
      max_tokens: 50,
    }),
    signal: AbortSignal.timeout(30_000),
  });
  const head = Date.now();
  const text = await res.text();
  const endedAt = Date.now();
  const answer: Answer = {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    ms: (stream ? head : endedAt) - startedAt,
    startedAt,
    endedAt,
    stream,
  };
  if (res.status === 200) {
    if (stream) {
      answer.done = text.trimEnd().endsWith("data: [DONE]");
      answer.id = /"id":"(chatcmpl-[^"]+)"/.exec(text)?.[1];
      answer.body = text.slice(-300);
    } else {
      answer.id = (JSON.parse(text) as { id: string }).id;
    }
  } else {
    answer.body = text.slice(0, 300);
  }
  return answer;
}

/** 20 clients calling in a loop until `stopAt`; half of them stream. */
async function load(key: string, stopAt: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      while (Date.now() < stopAt) {
        const a = await call(key, c % 2 === 1, n++);
        answers.push(a);
        // A client told to retry later does so (not in a tight loop).
        if (a.status === 503) await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  return answers;
}

async function billsOf(companyId: string) {
  const rows = (await db.execute(sql`
    SELECT reference_id FROM ledger_entries WHERE company_id = ${companyId} AND kind = 'completion'`)) as unknown as {
    reference_id: string;
  }[];
  return rows.map((r) => r.reference_id);
}

/** Waits until the server wrote what it journaled during the outage (the bill count stops moving). */
async function billsSettled(companyId: string, expected: number) {
  let bills: string[] = [];
  for (let i = 0; i < 60; i++) {
    bills = await billsOf(companyId);
    if (bills.length >= expected) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, 500));
  return billsOf(companyId);
}

async function firstServed(key: string, after: number, seen: Answer[]): Promise<number> {
  for (;;) {
    const a = await call(key, false, 0);
    seen.push(a);
    if (a.status === 200) return a.endedAt - after;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function checkOutage(answers: Answer[], cutStart: number, cutEnd: number) {
  const statuses: Record<number, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const bad = answers.filter((a) => a.status !== 200 && a.status !== 503);
  expect(bad.map((a) => `${a.status} ${a.body}`)).toEqual([]);
  for (const a of answers.filter((x) => x.status === 503))
    expect(a.retryAfter, "503 without Retry-After").toMatch(/^\d+$/);
  // A refusal is fast (under 2 s); an answer may have waited for the journal's disk sync, but no
  // call hangs (under 5 s).
  const slow = answers.filter((a) => a.ms >= (a.status === 503 ? 2_000 : 5_000));
  expect(
    slow.map(
      (a) =>
        `${a.status}${a.stream ? " stream" : ""} after ${a.ms} ms, sent ${a.startedAt - cutStart} ms after the cut began (it lasted ${cutEnd - cutStart} ms)`,
    ),
  ).toEqual([]);
  const brokenStreams = answers.filter((a) => a.stream && a.status === 200 && !a.done);
  expect(brokenStreams.map((a) => a.body)).toEqual([]);
  const served = answers.filter((a) => a.status === 200 && a.endedAt > cutEnd).sort((a, b) => a.endedAt - b.endedAt);
  expect(served.length).toBeGreaterThan(0);
  expect(served[0]!.endedAt - cutEnd, "first 200 after the cut ended").toBeLessThan(2_000);
  expect(statuses[503] ?? 0, "the cut was felt").toBeGreaterThan(0);
  return statuses;
}

async function checkBilling(companyId: string, answers: Answer[]) {
  const ok = answers.filter((a) => a.status === 200);
  const ids = ok.map((a) => a.id);
  expect(ids.every(Boolean)).toBe(true);
  const bills = await billsSettled(companyId, ok.length);
  // Exactly one bill per 200, none for anything else (every bill names a 200's answer).
  expect(bills.length).toBe(ok.length);
  expect(new Set(bills)).toEqual(new Set(ids));
  const [row] = (await db.execute(sql`
    SELECT count(*)::int AS held FROM runs WHERE company_id = ${companyId}`)) as unknown as { held: number }[];
  expect(row!.held).toBe(ok.length);
}

describe("PostgreSQL cut for 10 s under 20 concurrent clients", () => {
  for (const mode of ["down", "blackhole"] as const) {
    it(`${mode === "down" ? "server down (connections reset, new ones refused)" : "network blackhole (nothing answers, no errors)"}: 200 or a fast 503, billed exactly once`, async () => {
      const { companyId, key } = await tenant();
      const extra = [await call(key, false, 0)];
      expect(extra[0]!.status).toBe(200);
      const t0 = Date.now();
      const run = load(key, t0 + 16_000);
      await new Promise((r) => setTimeout(r, 3_000));
      const cutStart = Date.now();
      if (mode === "down") proxy.disable();
      else proxy.pause();
      await new Promise((r) => setTimeout(r, 10_000));
      const cutEnd = Date.now();
      if (mode === "down") proxy.enable();
      else proxy.resume();
      const first = await firstServed(key, cutEnd, extra);
      const answers = await run;
      const statuses = checkOutage(answers, cutStart, cutEnd);
      expect(first).toBeLessThan(2_000);
      // The journal wrote what was answered during the outage; the control call is billed too.
      await checkBilling(companyId, [...extra, ...answers]);
      console.log(`db cut (${mode}):`, JSON.stringify(statuses), `first 200 ${first} ms after the cut`);
      const ready = await fetch(`${server.url}/api/ready`);
      expect(ready.status).toBe(200);
    }, 90_000);
  }
});

describe("the acknowledgement of a commit is lost", () => {
  it("a single-statement persist whose reply never comes back: 200 and exactly one bill", async () => {
    const { companyId, key } = await tenant();
    expect((await call(key, false, 0)).status).toBe(200); // key, company and lease warm
    await new Promise((r) => setTimeout(r, 300));
    // The prompt is among the persist statement's parameters: its Bind message is the statement.
    const marker = `lostack-${randomBytes(6).toString("hex")}`;
    const cut = proxy.loseReplyAfter((chunk) => chunk.includes(marker));
    const answer = await call(key, false, marker);
    await cutWithin(cut);
    expect(answer.status).toBe(200);
    const bills = await billsSettled(companyId, 2);
    expect(bills.filter((id) => id === answer.id)).toHaveLength(1);
    expect(bills).toHaveLength(2);
  });

  it("a run whose thread claim committed but was never acknowledged fails fast and leaves its thread free, not locked", async () => {
    const { key } = await tenant();
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    const thread = (await (await post("/v1/threads", {})).json()) as { id: string };
    expect((await post(`/v1/threads/${thread.id}/messages`, { role: "user", content: "claim me" })).status).toBe(201);
    // The claim is the first statement naming the thread (lib/runs/claim-thread.ts); it commits by itself.
    const cut = proxy.loseReplyAfter((chunk) => chunk.includes(thread.id));
    const started = Date.now();
    const lost = await post(`/v1/threads/${thread.id}/runs`, { model: "gpt-4.1-mini" });
    await cutWithin(cut);
    expect(lost.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Its claim committed: released by the failed run, the next run is accepted within seconds.
    let next = 0;
    for (let i = 0; i < 40 && next !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      next = (await post(`/v1/threads/${thread.id}/runs`, { model: "gpt-4.1-mini" })).status;
      expect([200, 409, 503]).toContain(next);
    }
    expect(next).toBe(200);
    const [row] = (await db.execute(
      sql`SELECT count(*)::int AS n FROM active_runs WHERE thread_id = ${thread.id}`,
    )) as unknown as { n: number }[];
    expect(row!.n).toBe(0);
    // The lost run is stored as failed, as the reconciler stores the runs it ends.
    const stored = (await db.execute(sql`
      SELECT status, error->>'code' AS code FROM runs WHERE thread_id = ${thread.id} ORDER BY created_at`)) as unknown as {
      status: string;
      code: string | null;
    }[];
    expect(stored).toEqual([
      { status: "failed", code: "database_unavailable" },
      { status: "completed", code: null },
    ]);
  });

  it("a group commit of several runs whose COMMIT is not acknowledged: every client 200, one bill each", async () => {
    const { companyId, key } = await tenant();
    expect((await call(key, false, 0)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const marker = `lostcommit-${randomBytes(6).toString("hex")}`;
    const cut = proxy.loseReplyAfter((chunk) => chunk.includes(marker), { commit: true });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call(key, false, `${marker} ${i}`)));
    await cutWithin(cut);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const bills = await billsSettled(companyId, 13);
    expect(bills).toHaveLength(13);
    expect(new Set(bills).size).toBe(13);
    for (const a of answers) expect(bills).toContain(a.id);
  });
});

describe("a statement before the upstream call whose connection is cut is sent again", () => {
  it("a lease whose COMMIT is not acknowledged: opened again, the call 200 and billed once", async () => {
    const { companyId, key } = await tenant();
    // A fresh company has no lease: its first call opens one (lib/billing/lease.ts), the first
    // transaction naming the company.
    const cut = proxy.loseReplyAfter((chunk) => chunk.includes(companyId), { commit: true });
    const answer = await call(key, false, "lease");
    await cutWithin(cut);
    expect(answer.status, answer.body).toBe(200);
    expect(await billsSettled(companyId, 1)).toEqual([answer.id]);
    // The unacknowledged lease committed and stays held until it expires; no credit is reserved
    // that no reservation row accounts for.
    const [row] = (await db.execute(sql`
      SELECT c.reserved_micro::bigint AS reserved,
        (SELECT coalesce(sum(amount_micro), 0)::bigint FROM reservations r
          WHERE r.company_id = c.id AND r.status = 'held') AS held,
        (SELECT count(*)::int FROM reservations r WHERE r.company_id = c.id AND r.reference_id = 'lease') AS leases
      FROM companies c WHERE c.id = ${companyId}`)) as unknown as { reserved: string; held: string; leases: number }[];
    expect(row!.reserved).toBe(row!.held);
    expect(row!.leases).toBe(2);
  });

  it("a rate-limit count whose reply never comes back: counted again, the call 200", async () => {
    const { key, keyId } = await tenant();
    // The PostgreSQL store's upsert names the limiter's key (lib/rate-limit/postgres-store.ts).
    const limiterKey = `rl:key:${keyId}`;
    const cut = proxy.loseReplyAfter((chunk) => chunk.includes(limiterKey));
    const answer = await call(key, false, "rate limit");
    await cutWithin(cut);
    expect(answer.status, answer.body).toBe(200);
    const [row] = (await db.execute(sql`SELECT points FROM rate_limits WHERE key = ${limiterKey}`)) as unknown as {
      points: number;
    }[];
    // Counted twice: the first count committed before its reply was lost.
    expect(row!.points).toBe(2 * chunkFor(100_000));
  });
});

describe("stale connections", () => {
  it("connections the server terminates (57P01) are retried: no 500, and no outage declared", async () => {
    const { key } = await tenant();
    const logOffset = server.stderr().length;
    const stopAt = Date.now() + 4_000;
    const run = load(key, stopAt);
    const sweeps = 3;
    for (let i = 0; i < sweeps; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      await db.execute(
        sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${APP_NAME}`,
      );
    }
    const answers = await run;
    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    // 57P01 never reaches a client (retried), and a sweep that also catches the probe's connection
    // is not an outage. A write whose connection closed may have committed, so it is a 503 with
    // Retry-After, never a 500, and rare.
    const breakerLines = server
      .stderr()
      .slice(logOffset)
      .split("\n")
      .filter((l) => l.includes("database unreachable: answering 503"));
    expect(breakerLines).toEqual([]);
    expect(
      Object.keys(statuses).filter((s) => s !== "200" && s !== "503"),
      JSON.stringify(statuses),
    ).toEqual([]);
    expect(statuses[503] ?? 0, JSON.stringify(statuses)).toBeLessThanOrEqual(
      Math.max(answers.length * 0.02, 3 * sweeps),
    );
    for (const a of answers.filter((x) => x.status === 503)) expect(a.retryAfter).toBe("1");
  });
});

describe("readiness", () => {
  it("/api/ready reports the database; /api/health stays a liveness check", async () => {
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(200);
    proxy.disable();
    try {
      const started = Date.now();
      const ready = await fetch(`${server.url}/api/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toBe("1");
      expect(await ready.json()).toMatchObject({ ok: false, database: "down" });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    } finally {
      proxy.enable();
    }
    for (let i = 0; i < 40 && (await fetch(`${server.url}/api/ready`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(200);
  });
});

describe("a crash during an outage", () => {
  it("bills journaled by a server killed while PostgreSQL was away are written by the server that replaces it", async () => {
    const doomed = await startNextServer(serverEnv);
    const { companyId, key } = await tenant();
    const callOn = (n: number) =>
      fetch(`${doomed.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "gpt-4.1-mini",
          messages: [{ role: "user", content: `crash ${n}` }],
          max_tokens: 20,
        }),
      });
    expect((await callOn(0)).status).toBe(200);
    // Five calls the provider takes 1.5 s to answer; PostgreSQL goes away while they are upstream,
    // so their bills can only be journaled; then the server dies before the database returns.
    upstream.queue.push(...Array.from({ length: 5 }, () => ({ kind: "delay" as const, ms: 1_500 })));
    const inFlight = Array.from({ length: 5 }, (_, i) => callOn(i + 1));
    await new Promise((r) => setTimeout(r, 500));
    proxy.disable();
    const served: string[] = [];
    try {
      for (const res of await Promise.all(inFlight)) {
        expect(res.status).toBe(200);
        served.push(((await res.json()) as { id: string }).id);
      }
      await doomed.kill();
    } finally {
      proxy.enable();
    }
    expect(await billsOf(companyId)).toHaveLength(1); // only the warm-up call reached the database
    const heir = await startNextServer(serverEnv);
    try {
      const bills = await billsSettled(companyId, 1 + served.length);
      expect(bills).toHaveLength(1 + served.length);
      for (const id of served) expect(bills).toContain(id);
    } finally {
      await heir.stop();
    }
  });
});
