import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { companies } from "@/db/schema";
import { makeCompany, makeKey } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";
import { renderTextPng } from "../support/png";

/**
 * Images through the run pipeline's multimodal stage (lib/runs/stages/multimodal.ts), end to end
 * on the production build: OCR by tesseract.js inside the server (serverExternalPackages), the
 * `local` group's deterministic description, a vision model on the fake upstream describing images
 * for a model without image input (and billed for it), and image URLs refused before any call.
 */
const VISION_REPLY = "A white card with black capital letters on it.";

let fake: FakeUpstream;
let server: RunningServer;

beforeAll(async () => {
  fake = await startFakeUpstream({
    reply: (body) => {
      const hasImage = (body.messages ?? []).some(
        (m: any) => Array.isArray(m.content) && m.content.some((p: any) => p.type === "image_url"),
      );
      return hasImage ? VISION_REPLY : `Echo from ${body.model}`;
    },
    usage: (_body, reply) => ({ prompt: 1000, completion: reply.split(/\s+/).filter(Boolean).length }),
  });
  server = await startNextServer({
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: "sk-upstream-test",
    OPENROUTER_BASE_URL: fake.openaiBase,
    OPENROUTER_API_KEY: "sk-or-upstream-test",
    ANTHROPIC_BASE_URL: fake.anthropicBase,
    ANTHROPIC_API_KEY: "sk-ant-upstream-test",
    GEMINI_API_KEY: "",
    VISION_MODEL: "gpt-4o-mini",
    UPSTREAM_RETRIES: "0",
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

function post(key: string, body: unknown) {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function completionEntries(key: string) {
  const res = await fetch(`${server.url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()).data as any[]).filter((e) => e.kind === "completion");
}

const balanceMicro = async (companyId: string) =>
  (await db.select({ b: companies.balanceMicro }).from(companies).where(eq(companies.id, companyId)))[0]!.b;

const textImage = (lines: string[]) => `data:image/png;base64,${renderTextPng(lines).png.toString("base64")}`;
const image = (url: string) => ({ type: "image_url", image_url: { url } });

describe("local models", () => {
  it("a data: image is described locally: the answer says 1 image and carries the OCR text", async () => {
    const { key } = await newTenant();
    const res = await post(key, {
      model: "local-mini",
      messages: [
        { role: "user", content: [{ type: "text", text: "What does it say?" }, image(textImage(["HELLO WORLD"]))] },
      ],
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()).choices[0].message.content as string;
    expect(answer).toContain("1 image");
    expect(answer).toMatch(/HELLO\s+WORLD/);
    expect(answer).toMatch(/\d+x\d+ image\/png/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("a model without image input", () => {
  it("receives each image as text (the vision model's description plus the OCR text), and the description is billed", async () => {
    const { key } = await newTenant();
    const png = textImage(["TOTAL 1234"]);
    const res = await post(key, {
      model: "o3-mini",
      max_tokens: 50,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Read this" }, image(png)] },
      ],
    });
    expect(res.status).toBe(200);
    expect(fake.requests.map((r) => r.body.model)).toEqual(["gpt-4o-mini", "o3-mini"]);

    const [vision, main] = fake.requests;
    // The vision model got the image itself (the bytes we decoded, as a data: URI).
    const visionImage = vision!.body.messages[0].content.find((p: any) => p.type === "image_url");
    expect(visionImage.image_url.url).toBe(png);

    const user = main!.body.messages.find((m: any) => m.role === "user");
    expect(user.content[0]).toEqual({ type: "text", text: "Read this" });
    expect(user.content[1].type).toBe("text");
    expect(user.content[1].text).toContain(VISION_REPLY);
    expect(user.content[1].text).toMatch(/TOTAL\s+1234/);
    expect(JSON.stringify(main!.body)).not.toContain("image_url");

    const [entry] = await completionEntries(key);
    expect(entry.metadata.stage_calls).toEqual([
      {
        stage: "multimodal",
        model: "gpt-4o-mini",
        prompt_tokens: 1000,
        completion_tokens: VISION_REPLY.split(" ").length,
        cost_micro: expect.any(Number),
      },
    ]);
    const visionMicro = entry.metadata.stage_calls[0].cost_micro as number;
    expect(visionMicro).toBeGreaterThan(0);
    // gpt-4o-mini at 150 O₮ / 600 O₮ per million tokens (input / output).
    expect(visionMicro).toBe(Math.round(1000 * 150 + 9 * 600));
    // The bill is the main call plus the description.
    expect(-entry.amount_ot * 1e6).toBeGreaterThan(visionMicro);
  });

  it("a company that cannot pay for the description gets 402 before any upstream call", async () => {
    const { key, company } = await newTenant(0);
    const res = await post(key, {
      model: "o3-mini",
      max_tokens: 10,
      messages: [{ role: "user", content: [image(textImage(["HI"]))] }],
    });
    expect(res.status).toBe(402);
    expect(fake.requests).toHaveLength(0);
    expect(await balanceMicro(company.id)).toBe(0);
  });
});

describe("a model that takes images", () => {
  it("receives image parts unchanged, HTTPS URLs unfetched", async () => {
    const { key } = await newTenant();
    const content = [
      { type: "text", text: "compare" },
      { type: "image_url", image_url: { url: "https://images.example.com/cat.png", detail: "high" } },
      image(textImage(["A"])),
    ];
    const res = await post(key, { model: "gpt-4o-mini", messages: [{ role: "user", content }] });
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.messages).toEqual([{ role: "user", content }]);
    expect((await completionEntries(key))[0].metadata.stage_calls).toBeUndefined();
  });
});

describe("refused image URLs", () => {
  it.each([
    ["gpt-4o-mini", "https://127.0.0.1/a.png"],
    ["gpt-4o-mini", "https://0x7f.1/a.png"],
    ["gpt-4o-mini", "https://[::ffff:10.0.0.1]/a.png"],
    ["o3-mini", "https://2130706433/a.png"],
    ["o3-mini", "https://169.254.169.254/latest/meta-data"],
    ["local-mini", "https://192.168.1.1/a.png"],
  ])("%s with %s: 400 naming the part, no upstream call, no bill", async (model, url) => {
    const { key, company } = await newTenant();
    const before = await balanceMicro(company.id);
    const res = await post(key, {
      model,
      max_tokens: 10,
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: [{ type: "text", text: "look" }, image(url)] },
      ],
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: "invalid_image_url", param: "messages.1.content.1.image_url" });
    expect(error.message).toMatch(/address/);
    expect(fake.requests).toHaveLength(0);
    expect(await completionEntries(key)).toEqual([]);
    expect(await balanceMicro(company.id)).toBe(before);
  });
});
