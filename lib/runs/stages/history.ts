import "server-only";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { MAX_IMAGE_TOKENS } from "@/lib/providers/image-tokens";
import { countRepeatedTextTokens, countTextTokens } from "@/lib/providers/tokens";
import type { ChatMessage, ContentPart } from "@/lib/providers/types";
import { cachedHistory, rememberHistory, type HistoryRow } from "@/lib/threads/history-cache";
import { messageTexts } from "@/lib/threads/message-tokens";
import type { RunContext, Stage } from "../context";
import { claimThread } from "../claim-thread";
import { modelMaxOutputTokens, outputCap } from "../output-cap";
import { addStep, STEP_TYPE } from "../steps";
import { knowledgeBudgets, willRetrieve } from "./retrieval";

/** Rows read with the run's claim (lib/runs/claim-thread.ts); later pages are larger. */
const FIRST_PAGE = 64;
const NEXT_PAGE = 512;

/** OpenAI's chat framing (lib/providers/tokens.ts): per message, and priming the reply. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

function imageCount(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const p of content as ContentPart[]) if (p.type === "image_url") n++;
  return n;
}

function toMessage(row: HistoryRow): ChatMessage {
  return { ...(row.extra ?? {}), role: row.role, content: row.content as ChatMessage["content"] } as ChatMessage;
}

/** Text tokens of a row: stored when it was added, else counted now (messages stored by chat completions). */
function textTokens(row: HistoryRow): number {
  if (row.tokens !== null) return row.tokens;
  const n = messageTexts(toMessage(row)).reduce((sum, t) => sum + countTextTokens(t), 0);
  // Counted once: a row is kept by the history cache (frozen there) after its first run.
  if (!Object.isFrozen(row)) row.tokens = n;
  return n;
}

/**
 * The thread's rows from the newest down, as far as known without another read: what the claim
 * read above the cached rows, then the cached rows (lib/threads/history-cache.ts). `complete` when
 * the oldest of them is the thread's first message.
 */
async function claimAndRead(ctx: RunContext): Promise<{ rows: HistoryRow[]; complete: boolean }> {
  const cached = cachedHistory(ctx.companyId, ctx.threadId);
  const newestCached = cached?.rows.at(-1)?.seq ?? -1;
  const fresh = await claimThread(ctx, FIRST_PAGE, newestCached);
  if (!cached) return { rows: fresh, complete: fresh.length < FIRST_PAGE };
  // Every row above the cached ones was read (a short page), or the page reaches down to them.
  const joined = fresh.length < FIRST_PAGE || fresh.at(-1)!.seq === newestCached + 1;
  if (!joined) return { rows: fresh, complete: false };
  for (let i = cached.rows.length - 1; i >= 0; i--) fresh.push(cached.rows[i]!);
  return { rows: fresh, complete: cached.complete };
}

/**
 * A page of a response's chain (RunContext.previousRunId): the messages of the runs it follows on
 * the thread they share, newest first, below `beforeSeq`. The chain is walked by primary key on
 * each page (a few rows per response); the messages are read along the (thread_id, seq) index.
 */
function chainPage(ctx: RunContext, previousRunId: string, beforeSeq: number | null, limit: number) {
  return db.execute(sql`
    WITH RECURSIVE chain(id, prev, depth) AS (
      SELECT id, previous_run_id, 0 FROM runs
      WHERE id = ${previousRunId} AND company_id = ${ctx.companyId} AND thread_id = ${ctx.threadId}
      UNION ALL
      SELECT r.id, r.previous_run_id, c.depth + 1 FROM runs r JOIN chain c ON r.id = c.prev
      WHERE r.company_id = ${ctx.companyId} AND c.depth < 100000)
    SELECT seq, role, content, extra, tokens FROM messages
    WHERE thread_id = ${ctx.threadId} AND run_id IN (SELECT id FROM chain)
      ${beforeSeq === null ? sql`` : sql`AND seq < ${beforeSeq}`}
    ORDER BY seq DESC LIMIT ${limit}`) as unknown as Promise<HistoryRow[]>;
}

/**
 * The newest page of a response's chain. A persistent response claims the thread first, reading
 * no page of it (the thread may hold other chains: forks) and skipping the history cache, which
 * holds whole threads.
 */
async function chainRows(ctx: RunContext, previousRunId: string): Promise<{ rows: HistoryRow[]; complete: boolean }> {
  if (ctx.persistent) await claimThread(ctx, 0);
  const rows = await chainPage(ctx, previousRunId, null, FIRST_PAGE);
  return { rows, complete: rows.length < FIRST_PAGE };
}

/**
 * A thread the run's final statement makes (RunContext.newThread): no other run can know it, so
 * there is nothing to claim or read. Admitted, the run is stored whatever happens, as a claimed one.
 */
function newThread(ctx: RunContext): { rows: HistoryRow[]; complete: boolean } {
  ctx.claimed = true;
  return { rows: [], complete: true };
}

/** Tokens of a message not stored yet (a response's input), as the budget counts a row. */
function pendingTokens(m: ChatMessage): number {
  return messageTexts(m).reduce((sum, t) => sum + countTextTokens(t), 0);
}

async function olderRows(ctx: RunContext, beforeSeq: number, limit: number): Promise<HistoryRow[]> {
  if (ctx.previousRunId) return chainPage(ctx, ctx.previousRunId, beforeSeq, limit);
  return (await db.execute(sql`
    SELECT seq, role, content, extra, tokens FROM messages
    WHERE thread_id = ${ctx.threadId} AND seq < ${beforeSeq}
    ORDER BY seq DESC LIMIT ${limit}`)) as unknown as HistoryRow[];
}

/**
 * Stored `data:` images come back as `sha256:<hex>` (lib/threads/storable-content.ts): their bytes are
 * read from message_images (the company's own) and the part is a data: URI again. An image whose
 * bytes were never kept (a chat completion's record) becomes a text saying so.
 */
async function restoreImages(ctx: RunContext, messages: ChatMessage[]): Promise<void> {
  const wanted = new Set<string>();
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) {
      const url = p.type === "image_url" ? (p as { image_url: { url: string } }).image_url.url : "";
      if (url.startsWith("sha256:")) wanted.add(url.slice(7));
    }
  }
  if (wanted.size === 0) return;
  const rows = (await db.execute(sql`
    SELECT sha256, mime_type, encode(bytes, 'base64') AS b64 FROM message_images
    WHERE company_id = ${ctx.companyId} AND sha256 IN (${sql.join(
      [...wanted].map((d) => sql`${d}`),
      sql`, `,
    )})`)) as unknown as {
    sha256: string;
    mime_type: string;
    b64: string;
  }[];
  // PostgreSQL's base64 breaks lines every 76 characters.
  const byDigest = new Map(rows.map((r) => [r.sha256, `data:${r.mime_type};base64,${r.b64.replace(/\n/g, "")}`]));
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    m.content = m.content.map((p): ContentPart => {
      if (p.type !== "image_url") return p;
      const image = (p as { image_url: { url: string; detail?: string } }).image_url;
      if (!image.url.startsWith("sha256:")) return p;
      const uri = byDigest.get(image.url.slice(7));
      if (!uri) return { type: "text", text: "[an image that is no longer available]" };
      return {
        type: "image_url",
        image_url: { url: uri, ...(image.detail ? { detail: image.detail } : {}) },
      } as ContentPart;
    });
  }
}

/**
 * A run's history. First the run claims its thread (becomes its active run; 409 when one is
 * active) and reads the newest page, in one statement. Then: the composed system prompt, then the
 * newest messages that fit in the model's context window minus the output cap, counted with the
 * billing tokenizer (stored per message when it was added). Older messages are left out whole; the step says how
 * many. Reads newest first along the (thread_id, seq) index and stops when the budget is full, so
 * its cost follows what is sent, not the thread's length. Only a newest message that cannot fit by
 * itself is refused (400), before any upstream call.
 */
export const historyStage: Stage = {
  name: "history",
  skips: (ctx) => !ctx.persistent && !ctx.previousRunId,
  async run(ctx) {
    const started = performance.now();
    // Claiming writes the run row: only for a call the rate limiter admitted.
    await ctx.admitted;
    // A response's input: stored with its run, sent after the history, and it must fit whole.
    const pending = ctx.messages;
    const known = ctx.previousRunId
      ? await chainRows(ctx, ctx.previousRunId)
      : ctx.newThread
        ? newThread(ctx)
        : await claimAndRead(ctx);
    const window = ctx.model.model.contextWindow;
    // The answer's room: the request's cap, else the model's declared maximum (bounded by the
    // default cap); a model that declares none keeps a quarter of its window (a small local
    // model's window would otherwise go to the answer whole).
    const declared = modelMaxOutputTokens(ctx.model.model.slug);
    const cap = outputCap({
      requested: ctx.maxOutputTokens ?? (declared === undefined ? Math.floor(window / 4) : undefined),
      slug: ctx.model.model.slug,
      contextRoom: window,
    });
    const system = ctx.instructions.length
      ? countRepeatedTextTokens(ctx.instructions.join("\n\n")) + countTextTokens("system")
      : 0;
    // The offered tools' definitions are part of the prompt (lib/providers/tokens.ts promptParts).
    const tools = ctx.tools?.length ? countRepeatedTextTokens(JSON.stringify(ctx.tools)) : 0;
    // Room kept for what retrieval and mentioned files will add (a long thread cannot crowd it out).
    const kb = knowledgeBudgets(window);
    const knowledge = willRetrieve(ctx) ? kb.retrieval + (ctx.mentionedFileIds?.length ? kb.mentioned : 0) : 0;
    const budget =
      window - cap - REPLY_PRIMING - tools - knowledge - (ctx.instructions.length ? system + PER_MESSAGE : 0);

    const picked: HistoryRow[] = [];
    let used = 0;
    let text = system + tools;
    ctx.inputTokens = new Map();
    for (const m of pending) {
      const t = pendingTokens(m);
      ctx.inputTokens.set(m, t);
      used += t + PER_MESSAGE + imageCount(m.content) * MAX_IMAGE_TOKENS;
      text += t;
    }
    if (pending.length > 0 && used > budget) {
      throw new AppError(
        "invalid_request",
        `The input needs ${used} tokens; model '${ctx.requestedModel}' has room for ${Math.max(0, budget)} (a context window of ${window} tokens, ${cap} kept for the answer). Shorten the input.`,
        { param: "input", wireCode: "context_length_exceeded" },
      );
    }
    let full = false;
    // Everything read (and cached) of the thread, newest first, contiguous.
    const read = known.rows;
    let complete = known.complete;
    let rows = read;
    for (;;) {
      for (const row of rows) {
        const t = textTokens(row);
        const cost = t + PER_MESSAGE + imageCount(row.content) * MAX_IMAGE_TOKENS;
        if (used + cost > budget) {
          full = true;
          break;
        }
        used += cost;
        text += t;
        picked.push(row);
      }
      if (full || complete || read.length === 0) break;
      rows = await olderRows(ctx, read.at(-1)!.seq, NEXT_PAGE);
      complete = rows.length < NEXT_PAGE;
      for (const row of rows) read.push(row);
    }
    // A chain is a subset of the thread: the cache holds whole threads only.
    if (!ctx.previousRunId && !ctx.newThread) rememberHistory(ctx.companyId, ctx.threadId, read, complete);
    const newest = read[0];
    // A chain counts what was read of it (all of it when complete), not the thread's other chains.
    const total = ctx.previousRunId ? read.length : newest ? newest.seq + 1 : 0;
    if (newest && picked.length === 0 && pending.length === 0) {
      throw new AppError(
        "invalid_request",
        `The thread's newest message needs ${textTokens(newest) + PER_MESSAGE} tokens; model '${ctx.requestedModel}' has room for ${Math.max(0, budget)} (a context window of ${window} tokens, ${cap} kept for the answer). Shorten the message.`,
        { param: "messages", wireCode: "context_length_exceeded" },
      );
    }
    const messages = picked.reverse().map(toMessage);
    await restoreImages(ctx, messages);
    ctx.messages = [...messages, ...pending];
    // Exact o200k count of the prompt's texts (the hold and the bill use it: no second tokenizing pass).
    ctx.promptTextTokens = text;
    addStep(ctx, STEP_TYPE.history, started, {
      messages_in_thread: total,
      messages_sent: picked.length,
      ...(pending.length ? { input_messages: pending.length } : {}),
      ...(ctx.previousRunId
        ? { previous_response_id: ctx.previousRunId, chain_messages_read: read.length, chain_complete: complete }
        : {}),
      messages_left_out: total - picked.length,
      history_tokens: used,
      budget_tokens: budget,
      context_window: window,
      output_cap: cap,
    });
  },
};
