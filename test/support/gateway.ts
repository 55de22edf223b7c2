import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "./factories";
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from "./fake-upstream";
import { startNextServer, type RunningServer } from "./next-server";

/**
 * One production server in front of a fake upstream on loopback, for an http test file: started
 * before its tests, stopped after, the fake's record and queue emptied before each test. Every
 * provider group that speaks a protocol the fake knows points at it.
 */
export interface Gateway {
  server: RunningServer;
  fake: FakeUpstream;
  /** The environment the server was started with (to start another server like it). */
  env: Record<string, string>;
  /** A new company with `creditsOt` O₮ and an all-scopes key. */
  tenant(creditsOt?: number): Promise<{ companyId: string; key: string }>;
  /** A JSON call with the key; `base` defaults to this gateway's server. */
  call(
    key: string,
    method: string,
    path: string,
    body?: unknown,
    base?: string,
  ): Promise<{ status: number; json: any; headers: Headers }>;
  /** A new thread with these messages; its id. */
  thread(key: string, messages: { role: string; content: unknown }[]): Promise<string>;
}

export function useGateway(opts: { env?: Record<string, string>; fake?: FakeUpstreamOptions } = {}): Gateway {
  const gw = { env: {} } as Gateway;
  beforeAll(async () => {
    gw.fake = await startFakeUpstream(opts.fake);
    gw.env = {
      AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
      OPENAI_BASE_URL: gw.fake.openaiBase,
      OPENAI_API_KEY: "sk-test-openai",
      OPENROUTER_BASE_URL: gw.fake.openaiBase,
      OPENROUTER_API_KEY: "sk-test-or",
      ANTHROPIC_BASE_URL: gw.fake.anthropicBase,
      ANTHROPIC_API_KEY: "sk-test-anthropic",
      GEMINI_API_KEY: "",
      VISION_MODEL: "",
      UPSTREAM_RETRIES: "0",
      LOG_LEVEL: "error",
      REDIS_URL: "",
      ...opts.env,
    };
    gw.server = await startNextServer(gw.env);
  });
  afterAll(async () => {
    await gw.server?.stop();
    await gw.fake?.close();
  });
  beforeEach(() => {
    gw.fake.requests.length = 0;
    gw.fake.queue.length = 0;
  });
  gw.tenant = async (creditsOt = 100) => {
    const company = await makeCompany(db, { creditsOt });
    const { secret } = await makeKey(db, { companyId: company.id });
    return { companyId: company.id, key: secret };
  };
  gw.call = async (key, method, path, body, base) => {
    const res = await fetch(`${base ?? gw.server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
  };
  gw.thread = async (key, messages) => {
    const created = await gw.call(key, "POST", "/v1/threads", messages.length ? { messages } : {});
    expect(created.status).toBe(201);
    return created.json.id as string;
  };
  return gw;
}

/** SSE `data:` payloads of a whole stream, parsed (the terminator as the string "[DONE]"). */
export async function sseData(res: Response): Promise<any[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => f.slice(6))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}
