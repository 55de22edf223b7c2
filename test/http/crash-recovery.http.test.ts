import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { companies, models } from "@/db/schema";
import { costMicro } from "@/lib/models/pricing";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * A server killed with SIGKILL leaves its credit leases held until they expire; the restarted
 * server must give back the leases of the process it replaces at once, so a company with balance
 * never gets 402.
 */
const MODEL = "gpt-4.1-mini";
const IN_FLIGHT = 20;
const IN_FLIGHT_CAP = 1_000;
const AFTER_CAP = 5_000;

let fake: FakeUpstream;
let server: RunningServer | undefined;
/** While set, the fake provider never answers: the calls stay in flight until the server dies. */
let stall = true;

const env = () => ({
  AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
  OPENAI_BASE_URL: fake.openaiBase,
  OPENAI_API_KEY: "sk-up-openai",
  UPSTREAM_RETRIES: "0",
  LOG_LEVEL: "error",
  REDIS_URL: "",
});

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviourFor: () => (stall ? { kind: "hang" } : undefined) });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const post = (url: string, key: string, maxTokens: number) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }], max_tokens: maxTokens }),
  });

async function balanceOf(companyId: string) {
  const [co] = await db.select().from(companies).where(eq(companies.id, companyId));
  return { balance: co!.balanceMicro, reserved: co!.reservedMicro };
}

describe("a server killed with SIGKILL", () => {
  it("is restarted on its port and gives back the dead process's leases: a covered call is answered 200 within 5 s", async () => {
    const [m] = await db.select().from(models).where(eq(models.slug, MODEL));
    const perCall = costMicro({ promptTokens: 0, completionTokens: IN_FLIGHT_CAP, cachedTokens: 0 }, m!);
    // 20 calls' holds take more than 90 % of the balance; the call after the restart needs 5 of them.
    const company = await makeCompany(db, { creditsOt: (22 * perCall) / 1_000_000 });
    const { secret } = await makeKey(db, { companyId: company.id });

    server = await startNextServer(env());
    const port = server.port;
    const inFlight = Array.from({ length: IN_FLIGHT }, () =>
      post(server!.url, secret, IN_FLIGHT_CAP).catch(() => null),
    );
    for (let i = 0; fake.requests.length < IN_FLIGHT; i++) {
      if (i > 200) throw new Error(`only ${fake.requests.length} calls reached the provider`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const held = await balanceOf(company.id);
    expect(held.reserved).toBeGreaterThanOrEqual(IN_FLIGHT * perCall);
    // What is left unreserved cannot cover the call after the restart: without giving the dead
    // process's leases back, that call is refused.
    const afterHold = costMicro({ promptTokens: 0, completionTokens: AFTER_CAP, cachedTokens: 0 }, m!);
    expect(held.balance - held.reserved).toBeLessThan(afterHold);

    await server.kill();
    await Promise.all(inFlight);
    stall = false;
    server = await startNextServer(env(), { port });

    const started = Date.now();
    const statuses: number[] = [];
    for (;;) {
      const res = await post(server.url, secret, AFTER_CAP);
      statuses.push(res.status);
      await res.text();
      if (res.status === 200 || Date.now() - started > 5_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(statuses.at(-1), `statuses after the restart: ${statuses.join(", ")}`).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);

    // Nothing of the dead process is held any more, and its calls were never billed.
    await new Promise((r) => setTimeout(r, 2_500));
    const after = await balanceOf(company.id);
    expect(after.reserved).toBe(0);
    expect(after.balance).toBeGreaterThan(held.balance - afterHold);
  });
});
