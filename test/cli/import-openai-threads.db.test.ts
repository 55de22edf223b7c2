import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, asc, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { messageImages, messages, threads } from "@/db/schema";
import * as threadRoute from "@/app/v1/threads/[threadId]/route";
import * as messagesRoute from "@/app/v1/threads/[threadId]/messages/route";
import { importOpenAiThreads } from "@/lib/threads/import-openai-threads";
import { callRoute } from "../support/call-route";
import { makeCompany, makeKey } from "../support/factories";
import { runCli } from "../support/run-cli";

const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/openai-threads.jsonl");
const fixtureLines = () => readFileSync(FIXTURE, "utf8").trimEnd().split("\n");
const T1 = "thread_Qx8bVJ2nT4mK7rLp1sYc";
const T2 = "thread_Zr5HfN9wE3gD6aUk2oMi";
const T3 = "thread_Lm2cPq7vB1xS8eWj4tRn";

const importFile = (companyId: string, file = FIXTURE) =>
  runCli(["import", "openai-threads", "--company", companyId, "--file", file]);

async function importedThread(companyId: string, openaiId: string) {
  const [row] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.companyId, companyId), eq(threads.importKey, `openai:${openaiId}`)));
  return row!;
}

async function threadCount(companyId: string) {
  return (await db.select({ id: threads.id }).from(threads).where(eq(threads.companyId, companyId))).length;
}

async function messageRows(companyId: string) {
  return db.select().from(messages).where(eq(messages.companyId, companyId)).orderBy(asc(messages.id));
}

function writeTemp(name: string, text: string) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "openai-import-")), name);
  writeFileSync(file, text);
  return file;
}

describe("npm run admin -- import openai-threads", () => {
  it("imports an Assistants export as conversations, readable through the threads API, in created_at order", async () => {
    const company = await makeCompany(db);
    const { secret } = await makeKey(db, { companyId: company.id });

    const out = importFile(company.id);
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
    // 4 + 3 + 2: the third thread's last message is an in-progress one without content.
    expect(out.json).toEqual({ conversations: 3, messages: 9, skipped: 0 });

    const t1 = await importedThread(company.id, T1);
    const thread = await callRoute(threadRoute.GET, { key: secret, params: { threadId: t1.id } });
    expect(thread.json).toEqual({
      id: t1.id,
      object: "thread",
      created_at: 1714000000,
      metadata: { customer: "acme", channel: "web", openai_thread_id: T1 },
      source: "conversations",
    });

    // The export lists newest first; msg_t1a and msg_t1b share a second, so the list order decides.
    const list = await callRoute(messagesRoute.GET, {
      key: secret,
      path: `/v1/threads/${t1.id}/messages?order=asc`,
      params: { threadId: t1.id },
    });
    expect(list.status).toBe(200);
    expect(
      list.json.data.map((m: { role: string; content: unknown; created_at: number }) => [
        m.role,
        m.content,
        m.created_at,
      ]),
    ).toEqual([
      ["user", [{ type: "text", text: "Hi there" }], 1714000060],
      ["assistant", [{ type: "text", text: "Hello! How can I help?" }], 1714000060],
      [
        "user",
        [
          { type: "text", text: "When does order 1042 ship?" },
          { type: "image_url", image_url: { url: "https://example.com/receipt-1042.png", detail: "low" } },
        ],
        1714000120,
      ],
      ["assistant", [{ type: "text", text: "Your order 1042 ships tomorrow【4:0†orders.csv】." }], 1714000125],
    ]);
    expect(list.json.data.every((m: { run_id: unknown }) => m.run_id === null)).toBe(true);

    // Image files and attachments cannot be fetched from OpenAI: a note names them; data: images are stored by digest.
    const t2 = await importedThread(company.id, T2);
    expect(t2.metadata).toEqual({ openai_thread_id: T2 });
    const t2Messages = await db.select().from(messages).where(eq(messages.threadId, t2.id)).orderBy(asc(messages.seq));
    expect(t2Messages.map((m) => m.content)).toEqual([
      [
        { type: "text", text: "What is in this chart?" },
        { type: "text", text: "[image file file-Ch4rtPng01 not imported]" },
        { type: "text", text: "[attached file file-Sales2024Csv not imported]" },
      ],
      [
        { type: "text", text: "And this one?" },
        {
          type: "image_url",
          image_url: expect.objectContaining({
            url: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
            mime_type: "image/png",
          }),
        },
      ],
      [{ type: "text", text: "The chart shows sales rising in March." }],
    ]);
    const digest = (t2Messages[1]!.content as [unknown, { image_url: { url: string } }])[1].image_url.url.slice(7);
    const [image] = await db
      .select()
      .from(messageImages)
      .where(and(eq(messageImages.companyId, company.id), eq(messageImages.sha256, digest)));
    const exported = JSON.parse(fixtureLines()[1]!).messages[1].content[1].image_url.url as string;
    expect(image!.bytes.toString("base64")).toBe(exported.slice(exported.indexOf(",") + 1));
    // Counted as the threads API counts them: the texts' tokens, stored per message.
    expect(t2Messages.every((m) => (m.tokens ?? 0) > 0)).toBe(true);

    // Exported ascending (order=asc): the list order is kept; the refusal is kept as text.
    const t3 = await importedThread(company.id, T3);
    expect(t3.metadata).toEqual({ openai_thread_id: T3 });
    const t3Messages = await db.select().from(messages).where(eq(messages.threadId, t3.id)).orderBy(asc(messages.seq));
    expect(t3Messages.map((m) => [m.role, m.content])).toEqual([
      ["user", [{ type: "text", text: "Summarise our refund policy." }]],
      ["assistant", [{ type: "text", text: "I can't share internal policy documents." }]],
    ]);
  });

  it("is idempotent per thread, and per company: a second import skips, another company gets its own", async () => {
    const company = await makeCompany(db);
    const first = importFile(company.id);
    expect(first.json).toEqual({ conversations: 3, messages: 9, skipped: 0 });
    const before = await messageRows(company.id);

    const again = importFile(company.id);
    expect(again.code).toBe(0);
    expect(again.json).toEqual({ conversations: 0, messages: 0, skipped: 3 });
    expect(await threadCount(company.id)).toBe(3);
    expect((await messageRows(company.id)).map((m) => m.id)).toEqual(before.map((m) => m.id));

    // A file naming a thread twice imports it once.
    const lines = fixtureLines();
    const twice = writeTemp("twice.jsonl", [lines[0], lines[0]].join("\n"));
    const other = await makeCompany(db);
    expect(importFile(other.id, twice).json).toEqual({ conversations: 1, messages: 4, skipped: 1 });
    expect(importFile(other.id).json).toEqual({ conversations: 2, messages: 5, skipped: 1 });
    const otherThreads = await db.select().from(threads).where(eq(threads.companyId, other.id));
    expect(otherThreads).toHaveLength(3);
    const firstIds = (await db.select().from(threads).where(eq(threads.companyId, company.id))).map((t) => t.id);
    expect(otherThreads.filter((t) => firstIds.includes(t.id))).toEqual([]);
  });

  it("two imports of the same file at once store each thread once", async () => {
    const company = await makeCompany(db);
    const lines = async function* () {
      yield* fixtureLines();
    };
    const [a, b] = await Promise.all([
      importOpenAiThreads(db, { companyId: company.id, lines }),
      importOpenAiThreads(db, { companyId: company.id, lines }),
    ]);
    expect(a.conversations + b.conversations).toBe(3);
    expect(a.skipped + b.skipped).toBe(3);
    expect(a.messages + b.messages).toBe(9);
    const rows = await db.select().from(threads).where(eq(threads.companyId, company.id));
    expect(rows).toHaveLength(3);
    const stored = await db
      .select({ id: messages.id })
      .from(messages)
      .where(
        inArray(
          messages.threadId,
          rows.map((t) => t.id),
        ),
      );
    expect(stored).toHaveLength(9);
  });

  it("a malformed file imports nothing and names every bad line", async () => {
    const company = await makeCompany(db);
    const [l1, l2, l3] = fixtureLines();
    const wrongRole = JSON.parse(l3!);
    wrongRole.messages[0].role = "system";
    const foreignMessage = JSON.parse(l2!);
    foreignMessage.messages[2].thread_id = "thread_someoneElse";
    const file = writeTemp(
      "bad.jsonl",
      [l1, '{"thread": {"id": "thread_x"', "", JSON.stringify(wrongRole), JSON.stringify(foreignMessage)].join("\r\n"),
    );

    const out = importFile(company.id, file);
    expect(out.code).toBe(1);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
    const error = out.json.error as string;
    expect(error).toMatch(/^3 invalid lines, nothing imported: /);
    expect(error).toMatch(/line 2: not JSON/);
    expect(error).toMatch(/line 4: messages\.0\.role: /);
    expect(error).toMatch(/line 5: messages\.2\.thread_id: is 'thread_someoneElse'/);
    expect(error).not.toMatch(/line 1\b/);
    expect(await threadCount(company.id)).toBe(0);
  });

  it("refuses an unknown company and an unreadable file", async () => {
    const unknown = importFile("co_doesnotexist");
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatch(/No company found/);

    const company = await makeCompany(db);
    const missing = importFile(company.id, path.join(tmpdir(), "no-such-export.jsonl"));
    expect(missing.code).toBe(1);
    expect(missing.json.error).toMatch(/^cannot read --file .*no-such-export\.jsonl/);
    const noFile = runCli(["import", "openai-threads", "--file", FIXTURE]);
    expect(noFile.json).toEqual({ error: "--company is required" });
  });
});
