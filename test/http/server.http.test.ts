import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import os from "node:os";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { companies, messages, reservations } from "@/db/schema";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * The production server (scripts/server/main.mjs): POST /v1/chat/completions through the fast lane
 * answers exactly as the same route through Next.js's router (FAST_LANE=0), for answers and for
 * refusals; WEB_CONCURRENCY workers share the port, are restarted when one dies and all stop on
 * SIGTERM; a stopped server gives its credit leases back before it exits; without HOST it listens on
 * loopback only.
 */
const common = () => ({ AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"), LOG_LEVEL: "error" });

let fast: RunningServer;
let routed: RunningServer;
let key: string;

beforeAll(async () => {
  [fast, routed] = await Promise.all([
    startNextServer({ ...common(), FAST_LANE: "1" }),
    startNextServer({ ...common(), FAST_LANE: "0" }),
  ]);
  const company = await makeCompany(db, { creditsOt: 100 });
  key = (await makeKey(db, { companyId: company.id })).secret;
});

afterAll(async () => {
  await Promise.all([fast?.stop(), routed?.stop()]);
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function call(
  server: RunningServer,
  init: { body?: string; headers?: Record<string, string>; path?: string },
): Promise<Answer> {
  const res = await fetch(`${server.url}${init.path ?? "/v1/chat/completions"}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: init.body,
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  return { status: res.status, headers, body: await res.text() };
}

/** What may differ between two answers to the same request: ids, times, the date. */
function comparable(a: Answer) {
  const headers = { ...a.headers };
  for (const h of [
    "date",
    "x-request-id",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-reset-requests",
    "transfer-encoding",
    "content-length",
    "keep-alive",
    "connection",
    "vary",
    "request-id",
  ])
    delete headers[h];
  const body = a.body
    .replace(/"id":"[^"]*"/g, '"id":"<id>"')
    .replace(/"created(_at)?":\d+/g, '"created":0')
    .replace(/req_[A-Za-z0-9_-]+/g, "<request id>");
  return { status: a.status, headers, body };
}

const auth = () => ({ authorization: `Bearer ${key}` });

describe("fast lane and Next.js router give the same answers", () => {
  it("the fast lane is on (a Next.js upgrade that changed its route modules would turn it off)", () => {
    expect(fast.stderr()).toContain(
      "(fast lane: POST /v1/chat/completions, POST /v1/threads/[threadId]/runs, POST /v1/responses, POST /v1/messages, POST /v1/public/triggers/[companyId]/[secret], GET /v1/sdk/sdui-embed.js)",
    );
    expect(fast.stderr()).not.toContain("fast lane off");
    expect(routed.stderr()).toContain("(fast lane: off)");
  });

  const cases: [string, () => { body?: string; headers?: Record<string, string>; path?: string }][] = [
    [
      "a completion",
      () => ({
        headers: auth(),
        body: JSON.stringify({ model: "local-chat-latest", messages: [{ role: "user", content: "Say hi" }] }),
      }),
    ],
    [
      "a streamed completion with usage",
      () => ({
        headers: auth(),
        body: JSON.stringify({
          model: "local-chat-latest",
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: "user", content: "Stream please" }],
        }),
      }),
    ],
    ["no key (401)", () => ({ body: JSON.stringify({ model: "local-chat-latest", messages: [] }) })],
    ["malformed JSON (400)", () => ({ headers: auth(), body: "{not json" })],
    [
      "a schema error (400)",
      () => ({ headers: auth(), body: JSON.stringify({ model: "local-chat-latest", messages: "nope" }) }),
    ],
    [
      "an unknown model (404)",
      () => ({
        headers: auth(),
        body: JSON.stringify({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
      }),
    ],
    [
      "a disabled claude- slug (400)",
      () => ({
        headers: auth(),
        body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] }),
      }),
    ],
    [
      "a response",
      () => ({
        path: "/v1/responses",
        headers: auth(),
        body: JSON.stringify({ model: "local-chat-latest", input: "Say hi" }),
      }),
    ],
    [
      "an Anthropic message with x-api-key",
      () => ({
        path: "/v1/messages",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({
          model: "local-chat-latest",
          max_tokens: 64,
          messages: [{ role: "user", content: "Hi" }],
        }),
      }),
    ],
    [
      "an Anthropic message without a key (401 in Anthropic's shape)",
      () => ({
        path: "/v1/messages",
        body: JSON.stringify({ model: "local-chat-latest", max_tokens: 64, messages: [] }),
      }),
    ],
  ];

  for (const [name, make] of cases) {
    it(name, async () => {
      const init = make();
      const [a, b] = await Promise.all([call(fast, init), call(routed, init)]);
      expect(comparable(a)).toEqual(comparable(b));
      expect(a.headers["x-request-id"]).toBeTruthy();
    });
  }

  it("an oversized body is refused with 413 by both, and the fast lane does not read it all", async () => {
    const big = `{"model":"local-chat-latest","messages":[{"role":"user","content":"${"x".repeat(33 * 1024 * 1024)}"}]}`;
    const [a, b] = await Promise.all([
      call(fast, { headers: auth(), body: big }),
      call(routed, { headers: auth(), body: big }),
    ]);
    expect(a.status).toBe(413);
    expect(comparable(a).body).toEqual(comparable(b).body);
  });

  it("a completion through either path is persisted as a completions thread", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const secret = (await makeKey(db, { companyId: company.id })).secret;
    const headers = { authorization: `Bearer ${secret}` };
    const body = JSON.stringify({ model: "local-mini", messages: [{ role: "user", content: "keep me" }] });
    for (const server of [fast, routed]) expect((await call(server, { headers, body })).status).toBe(200);
    const res = await fetch(`${fast.url}/v1/threads?source=completions&limit=100`, { headers });
    const list = (await res.json()) as { data: unknown[] };
    expect(list.data.length).toBe(2);
  });
});

function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["--ppid", String(pid), "-o", "pid="], { encoding: "utf8" })
      .split("\n")
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when nothing matches
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Whether a TCP connection to host:port is accepted (refused, unreachable or silent for 2 s: false). */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

describe("listening address", () => {
  it("without HOST the server listens on loopback only: no other address of the machine accepts a connection", async () => {
    expect(fast.stderr()).toContain(`ready on http://127.0.0.1:${fast.port} (`);
    const external = Object.entries(os.networkInterfaces()).flatMap(([name, addrs]) =>
      (addrs ?? [])
        .filter((a) => !a.internal)
        .map((a) => (a.family === "IPv6" && a.address.startsWith("fe80:") ? `${a.address}%${name}` : a.address)),
    );
    // The probe itself works: a server on every interface is reached through each of these addresses.
    const open = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => open.listen(0, "::", resolve));
    const openPort = (open.address() as net.AddressInfo).port;
    try {
      for (const address of external) {
        expect(await accepts(address, openPort), `control: ${address}`).toBe(true);
        expect(await accepts(address, fast.port), address).toBe(false);
      }
    } finally {
      open.close();
    }
    expect(await accepts("127.0.0.1", fast.port)).toBe(true);
  });
});

/** A client that sends a request's headers and then one body byte every `everyMs`; resolves with what the server answered when it closed. */
function trickle(port: number, everyMs: number, apiKey: string): Promise<{ answer: string; afterMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let timer: NodeJS.Timeout | undefined;
    socket.on("connect", () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      timer = setInterval(() => socket.write(" "), everyMs);
    });
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ answer, afterMs: Date.now() - started });
    });
  });
}

describe("deadlines for slow clients", () => {
  it("100 sockets sending one body byte every 5 s are closed with 408 at the body deadline, while other clients are served", async () => {
    const server = await startNextServer({ ...common(), REQUEST_TIMEOUT_MS: "6000", HEADERS_TIMEOUT_MS: "2000" });
    try {
      const slow = Array.from({ length: 100 }, () => trickle(server.port, 5000, key));
      // Meanwhile the server answers everyone else, keyed calls included.
      for (let i = 0; i < 10; i++) {
        expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
        const answer = await call(server, {
          headers: auth(),
          body: JSON.stringify({ model: "local-mini", messages: [{ role: "user", content: "hi" }] }),
        });
        expect(answer.status).toBe(200);
        await new Promise((r) => setTimeout(r, 300));
      }
      for (const { answer, afterMs } of await Promise.all(slow)) {
        // Node's default would have kept each socket for 300 s.
        expect(answer.slice(0, 12)).toBe("HTTP/1.1 408");
        expect(afterMs).toBeGreaterThanOrEqual(5000); // still trickling when the deadline came
        expect(afterMs).toBeLessThan(6000 + 2500); // the deadline plus the 1 s check interval, with slack
      }
    } finally {
      await server.stop();
    }
  });
});

describe("WEB_CONCURRENCY", () => {
  it("two workers share the port, a dead worker is replaced, SIGTERM stops them all", async () => {
    const server = await startNextServer({ ...common(), WEB_CONCURRENCY: "2" });
    try {
      await until(() => childrenOf(server.pid).length === 2);
      const workers = childrenOf(server.pid);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call(server, {
            headers: auth(),
            body: JSON.stringify({ model: "local-mini", messages: [{ role: "user", content: "hi" }] }),
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

      process.kill(workers[0]!, "SIGKILL");
      await until(() => {
        const now = childrenOf(server.pid);
        return now.length === 2 && !now.includes(workers[0]!);
      });
      await until(() => childrenOf(server.pid).every(alive));
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);

      const all = [server.pid, ...childrenOf(server.pid)];
      await server.stop();
      await until(() => all.every((p) => !alive(p)));
    } finally {
      await server.stop();
    }
  });
});

describe("stopping", () => {
  it("SIGTERM right after a completion: the answer is billed and the server's credit lease released before it exits", async () => {
    const server = await startNextServer({ ...common() });
    const company = await makeCompany(db, { creditsOt: 100 });
    const secret = (await makeKey(db, { companyId: company.id })).secret;
    try {
      const res = await call(server, {
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify({ model: "local-chat-latest", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      // The lease that held this call's credit is still open (it is released 2 s after its last call).
      const held = await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.companyId, company.id), eq(reservations.status, "held")));
      expect(held.length).toBe(1);
      await server.stop();
      const after = await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.companyId, company.id), eq(reservations.status, "held")));
      expect(after).toEqual([]);
      const [row] = await db.select().from(companies).where(eq(companies.id, company.id));
      expect(row!.reservedMicro).toBe(0);
      expect(row!.balanceMicro).toBeLessThan(100_000_000);
    } finally {
      await server.stop();
    }
  });
});

describe("text PostgreSQL cannot store (NUL, unpaired surrogates)", () => {
  it("in a completion's messages and answer: answered, and stored with U+FFFD in their place", async () => {
    const company = await makeCompany(db, { creditsOt: 100 });
    const secret = (await makeKey(db, { companyId: company.id })).secret;
    for (const server of [fast, routed]) {
      const res = await call(server, {
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify({
          model: "local-chat-latest",
          messages: [
            { role: "system", content: "s\u0000" },
            { role: "user", content: "a\u0000b\ud800c" },
          ],
        }),
      });
      expect(res.status).toBe(200);
      // The local model quotes the user's message: the answer holds the NUL too, and reaches the client as it is.
      const answer = (JSON.parse(res.body) as { choices: { message: { content: string } }[] }).choices[0]!.message
        .content;
      expect(answer).toContain("a\u0000b");
    }
    const stored = await db.select().from(messages).where(eq(messages.companyId, company.id));
    expect(stored.length).toBe(6);
    const texts = stored.map((m) => JSON.stringify(m.content));
    expect(texts.some((t) => t.includes("a\ufffdb\ufffdc"))).toBe(true);
    expect(texts.join("")).not.toMatch(/\\u0000/);
  });

  it("in names, cursors, metadata and path parameters: a 4xx naming the problem, never a 500", async () => {
    const h = { ...auth(), "content-type": "application/json" };
    const keyName = await fetch(`${fast.url}/v1/sdk/keys`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ name: "a\u0000", scopes: ["chat"] }),
    });
    expect(keyName.status).toBe(400);
    expect(((await keyName.json()) as { error: { param: string; message: string } }).error).toMatchObject({
      param: "name",
    });
    const cursor = await fetch(`${fast.url}/v1/threads?source=completions&after=%00`, { headers: h });
    expect(cursor.status).toBe(400);
    const usage = await fetch(`${fast.url}/v1/usage`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ source: "whisper", duration_s: 1, metadata: { note: "\ud800" } }),
    });
    expect(usage.status).toBe(400);
    for (const path of ["/v1/models/%E0%A4%A", "/v1/models/%E0"]) {
      const res = await fetch(`${fast.url}${path}`, { headers: h });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_path");
    }
    for (const path of ["/v1/models/%00", "/v1/models/%25E0", "/v1/sdk/keys/%00"]) {
      const res = await fetch(`${fast.url}${path}`, {
        method: path.startsWith("/v1/sdk") ? "DELETE" : "GET",
        headers: h,
      });
      expect(res.status, path).toBe(404);
    }
  });
});
