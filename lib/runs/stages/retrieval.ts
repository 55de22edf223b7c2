import "server-only";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { activeCollectionIds } from "@/lib/knowledge/collections/assert-active-collections";
import type { QueryEmbeddingCost } from "@/lib/knowledge/contracts";
import { search } from "@/lib/knowledge/search";
import { countTextTokens, messageText } from "@/lib/providers/tokens";
import type { Passage } from "@/lib/providers/types";
import type { ProfilesOutput, RetrievalOutput, RunBill, RunOutcome, RunPrompt, RunRequest, Stage } from "../context";
import { contextLayer } from "../model-request";
import { addStep, STEP_TYPE } from "../steps";
import { inStepSpans } from "@/lib/observability/tracing/step-span";

/** What the retrieval stage reads and writes. */
type Ctx = RunRequest & RunPrompt & ProfilesOutput & RetrievalOutput & RunBill & RunOutcome;

/** Chunks retrieval puts into the context at most. */
const RETRIEVAL_TOP_K = 5;
/**
 * Tokens of context retrieval and mentioned files may add: the history stage keeps this much of
 * the window free when the run will retrieve (a long thread cannot crowd out its knowledge).
 */
const RETRIEVAL_BUDGET_TOKENS = 3000;
const MENTIONED_BUDGET_TOKENS = 4000;
/** What a step keeps of each candidate's text. */
const STEP_CHUNK_CHARS = 300;

/** What retrieval and mentioned files may add for a model: the budgets above, at most an eighth of its window each. */
export function knowledgeBudgets(window: number): { retrieval: number; mentioned: number } {
  return {
    retrieval: Math.min(RETRIEVAL_BUDGET_TOKENS, Math.floor(window / 8)),
    mentioned: Math.min(MENTIONED_BUDGET_TOKENS, Math.floor(window / 8)),
  };
}

/** Whether the run will retrieve or read mentioned files (the history stage reserves room for it). */
export function willRetrieve(ctx: Ctx): boolean {
  return Boolean(
    (ctx.composition?.useKb && ctx.composition.knowledgeBaseIds.length > 0) || ctx.mentionedFileIds?.length,
  );
}

function lastUserText(ctx: Ctx): string {
  for (let i = ctx.messages.length - 1; i >= 0; i--) {
    const m = ctx.messages[i]!;
    if (m.role === "user") return messageText(m.content);
  }
  return "";
}

interface MentionedChunk {
  document_id: string;
  collection_id: string;
  filename: string;
  status: string;
  text: string | null;
  tokens: number | null;
}

/**
 * `mentioned_file_ids` (CONTRACT 6): documents of the company in `ready` state; their text, in
 * order, up to `budget` tokens in all. Unknown or another company's → 404; not ready → 409.
 */
async function mentionedPassages(ctx: Ctx, ids: string[], budget: number): Promise<Passage[]> {
  const rows = (await db.execute(sql`
    SELECT d.id AS document_id, d.collection_id, d.filename, d.status, c.text, c.tokens
    FROM knowledge_documents d
    LEFT JOIN LATERAL (
      SELECT text, tokens FROM knowledge_chunks WHERE document_id = d.id ORDER BY position LIMIT 200) c ON d.status = 'ready'
    WHERE d.company_id = ${ctx.companyId} AND d.id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`)) as unknown as MentionedChunk[];
  const byDoc = new Map<string, MentionedChunk[]>();
  for (const r of rows) byDoc.set(r.document_id, [...(byDoc.get(r.document_id) ?? []), r]);
  for (const id of ids) {
    const doc = byDoc.get(id);
    if (!doc)
      throw new AppError("not_found", `No document found with id '${id}'`, {
        param: "mentioned_file_ids",
        wireCode: "document_not_found",
      });
    if (doc[0]!.status !== "ready") {
      throw new AppError(
        "conflict",
        `Document ${id} is not ready (status '${doc[0]!.status}'); wait until it is indexed`,
        {
          param: "mentioned_file_ids",
          wireCode: "document_not_ready",
        },
      );
    }
  }
  const out: Passage[] = [];
  let left = budget;
  for (const id of ids) {
    for (const c of byDoc.get(id)!) {
      if (!c.text) continue;
      const t = c.tokens ?? countTextTokens(c.text);
      if (t > left) return out;
      left -= t;
      out.push({ text: c.text, documentId: c.document_id, collectionId: c.collection_id, filename: c.filename });
    }
  }
  return out;
}

/**
 * Retrieval: the composed profiles' collections (`knowledge_base_ids`, when `use_kb` is
 * on, the request's override winning) are searched with the last user message; the best chunks go
 * into the model's context with their source (a system layer, lib/runs/model-request.ts), within
 * RETRIEVAL_BUDGET_TOKENS, and into `citations`. `mentioned_file_ids` add their documents' text.
 * The step lists every candidate with its lexical, dense and fused scores. A billed query
 * embedding is held before its call (402 when the company cannot pay) and billed in the run's bill.
 */
export const retrievalStage: Stage<Ctx> = {
  name: "retrieval",
  skips: (ctx) => !willRetrieve(ctx),
  async run(ctx) {
    const started = performance.now();
    await ctx.admitted;
    const passages: Passage[] = [];
    const budgets = knowledgeBudgets(ctx.model.model.contextWindow);
    const mentioned = ctx.mentionedFileIds?.length
      ? await mentionedPassages(ctx, ctx.mentionedFileIds, budgets.mentioned)
      : [];
    passages.push(...mentioned);
    const query = lastUserText(ctx);
    const wanted = ctx.composition?.useKb ? ctx.composition.knowledgeBaseIds : [];
    const collections = await activeCollectionIds(db, ctx.companyId, wanted);
    // A billed query embedding is paid with the run, like an image description (ctx.stageCalls).
    const payQuery = (c: QueryEmbeddingCost) =>
      (ctx.stageCalls ??= []).push({
        stage: "retrieval",
        model: c.model,
        promptTokens: c.tokens,
        completionTokens: 0,
        costMicro: c.costMicro,
      });
    const found =
      collections.length && query.trim()
        ? await search(db, {
            companyId: ctx.companyId,
            collectionIds: collections,
            query,
            topK: RETRIEVAL_TOP_K,
            signal: ctx.signal,
            payQuery,
          })
        : [];
    let left = budgets.retrieval;
    const used = found.filter((r) => {
      const t = countTextTokens(r.chunk);
      if (t > left) return false;
      left -= t;
      return true;
    });
    for (const r of used)
      passages.push({
        text: r.chunk,
        documentId: r.documentId,
        collectionId: r.collectionId,
        filename: r.filename,
        score: r.score,
      });
    ctx.citations = used.map((r) => ({
      document_id: r.documentId,
      collection_id: r.collectionId,
      filename: r.filename,
      chunk: r.chunk,
      score: r.score,
    }));
    if (passages.length) {
      const before = ctx.passages.length ? countTextTokens(contextLayer(ctx.passages)) : 0;
      ctx.passages = [...ctx.passages, ...passages];
      // The prompt's exact count, when a stage kept one, grows by the context layer (and its separator).
      if (ctx.promptTextTokens !== undefined)
        ctx.promptTextTokens += countTextTokens(contextLayer(ctx.passages)) - before + 1;
    }
    addStep(ctx, STEP_TYPE.retrieval, started, {
      query: query.slice(0, 1000),
      collections,
      ...(wanted.length > collections.length
        ? { collections_not_active: wanted.filter((id) => !collections.includes(id)) }
        : {}),
      mentioned_file_ids: ctx.mentionedFileIds ?? [],
      mentioned_chunks: mentioned.length,
      candidates: found.map((r) => ({
        document_id: r.documentId,
        collection_id: r.collectionId,
        filename: r.filename,
        page: r.page,
        chunk: r.chunk.slice(0, STEP_CHUNK_CHARS),
        score: r.score,
        relevance: r.relevance,
        lexical_score: r.lexicalScore,
        lexical_rank: r.lexicalRank,
        dense_score: r.denseScore,
        dense_rank: r.denseRank,
        used: used.includes(r),
      })),
    });
  },
};
// Traced, the query's embedding call is a child of the retrieval step's span.
retrievalStage.run = inStepSpans(STEP_TYPE.retrieval, retrievalStage.run, willRetrieve);
