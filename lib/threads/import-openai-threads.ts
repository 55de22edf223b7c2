import "server-only";
import { sql } from "@/db/sql";
import type { z } from "zod";
import { THREAD_SOURCE } from "@/db/enums";
import { threads } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { addMessages } from "./add-messages";
import type { ContentPartInput } from "./content-part-input";
import { OpenAiThreadExport, type OpenAiMessage } from "./openai-export-schemas";
import type { MessageInput } from "./schemas";

export interface ImportCounts {
  /** Threads imported as new conversations by this call. */
  conversations: number;
  /** Messages stored in them. */
  messages: number;
  /** Threads already imported for the company (by an earlier import or earlier in the file), left as they are. */
  skipped: number;
}

/** Messages per insert statement; a thread's chunks share its one transaction. */
const MESSAGES_PER_STATEMENT = 100;
/** Bad lines named in the error; the count covers them all. */
const MAX_REPORTED_LINES = 20;
const MAX_ISSUES_PER_LINE = 3;

type Parsed = { ok: true; value: OpenAiThreadExport } | { ok: false; error: string };

function parseLine(text: string): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON (${(err as Error).message})` };
  }
  const parsed = OpenAiThreadExport.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, MAX_ISSUES_PER_LINE)
    .map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`);
  return { ok: false, error: issues.join("; ") };
}

/** Non-blank lines with their 1-based numbers (a UTF-8 byte order mark before the first is dropped). */
async function* numbered(lines: AsyncIterable<string>): AsyncGenerator<{ n: number; text: string }> {
  let n = 0;
  for await (const raw of lines) {
    n++;
    const text = n === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (text.trim()) yield { n, text };
  }
}

/**
 * The list endpoint answers newest first unless asked `order=asc`, so a list whose first message is
 * older than its last was asked ascending. Sorted by `created_at` (seconds); within a second the
 * list's own order decides.
 */
function chronological(messages: OpenAiMessage[]): OpenAiMessage[] {
  const ascending = messages.length > 1 && messages[0]!.created_at < messages.at(-1)!.created_at;
  const oldestFirst = ascending ? [...messages] : [...messages].reverse();
  return oldestFirst.sort((a, b) => a.created_at - b.created_at); // stable: ties keep list order
}

type Part = z.infer<typeof ContentPartInput>;
const note = (text: string): Part => ({ type: "text", text });

/**
 * Our content parts for an OpenAI message: text and refusals as text, image URLs as image parts
 * (a data: URI is stored by digest like the API's), and files we cannot fetch from OpenAI (image
 * files, attachments) as a note naming the file id. Annotations are dropped: their markers stay in the text.
 */
function toMessageInput(m: OpenAiMessage): MessageInput {
  const parts: Part[] = m.content.map((block) => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text.value };
      case "refusal":
        return { type: "text", text: block.refusal };
      case "image_url": {
        const { url, detail } = block.image_url;
        return { type: "image_url", image_url: detail ? { url, detail } : { url } };
      }
      case "image_file":
        return note(`[image file ${block.image_file.file_id} not imported]`);
    }
  });
  for (const a of m.attachments ?? []) parts.push(note(`[attached file ${a.file_id} not imported]`));
  return { role: m.role, content: parts };
}

/** One thread in its own transaction: the number of messages stored, or null when the company has it already. */
async function importThread(db: DbOrTx, companyId: string, line: OpenAiThreadExport): Promise<number | null> {
  const { thread } = line;
  // A message without content or attachments (a run cut off before it wrote) carries nothing to keep.
  const messages = chronological(line.messages).filter((m) => m.content.length > 0 || m.attachments?.length);
  return db.transaction(async (tx) => {
    // The unique (company_id, import_key) index makes a concurrent import of the same thread wait
    // for this one and then do nothing.
    const [row] = await tx
      .insert(threads)
      .values({
        id: newId("thread"),
        companyId,
        source: THREAD_SOURCE.conversations,
        metadata: { ...(thread.metadata ?? {}), openai_thread_id: thread.id },
        importKey: `openai:${thread.id}`,
        createdAt: new Date(thread.created_at * 1000),
      })
      .onConflictDoNothing()
      .returning({ id: threads.id });
    if (!row) return null;
    for (let i = 0; i < messages.length; i += MESSAGES_PER_STATEMENT) {
      const chunk = messages.slice(i, i + MESSAGES_PER_STATEMENT);
      const stored = await addMessages(tx, { companyId, threadId: row.id, messages: chunk.map(toMessageInput) });
      // addMessages returns them in seq order, which is the chunk's order.
      const times = stored.map((s, j) => ({ id: s.id, t: chunk[j]!.created_at }));
      await tx.execute(sql`
        UPDATE messages m SET created_at = to_timestamp(x.t)
        FROM jsonb_to_recordset(${JSON.stringify(times)}::jsonb) AS x(id text, t bigint)
        WHERE m.id = x.id AND m.company_id = ${companyId}`);
    }
    return messages.length;
  });
}

/**
 * Imports an OpenAI Assistants export (one `{"thread","messages"}` object a line) into the
 * company's conversations. The whole input is checked first and nothing is imported when any line
 * is bad (the error names every bad line, up to MAX_REPORTED_LINES). Then each thread is imported
 * in its own transaction. Idempotent per thread: `import_key` `openai:<thread id>`; a thread the
 * company already has is skipped whole, new messages included. `lines` is read twice, so a file
 * of any size is streamed and never held.
 * @throws invalid_request naming the bad lines; conflict when a line changed between the two reads.
 */
export async function importOpenAiThreads(
  db: DbOrTx,
  args: { companyId: string; lines: () => AsyncIterable<string> },
): Promise<ImportCounts> {
  const bad: string[] = [];
  let badCount = 0;
  for await (const { n, text } of numbered(args.lines())) {
    const parsed = parseLine(text);
    if (parsed.ok) continue;
    badCount++;
    if (bad.length < MAX_REPORTED_LINES) bad.push(`line ${n}: ${parsed.error}`);
  }
  if (badCount > 0) {
    const more = badCount > bad.length ? `; and ${badCount - bad.length} more` : "";
    throw new AppError(
      "invalid_request",
      `${badCount} invalid line${badCount === 1 ? "" : "s"}, nothing imported: ${bad.join("; ")}${more}`,
    );
  }

  const counts: ImportCounts = { conversations: 0, messages: 0, skipped: 0 };
  for await (const { n, text } of numbered(args.lines())) {
    const parsed = parseLine(text);
    if (!parsed.ok) throw new AppError("conflict", `line ${n} changed during the import: ${parsed.error}`);
    const stored = await importThread(db, args.companyId, parsed.value);
    if (stored === null) counts.skipped++;
    else {
      counts.conversations++;
      counts.messages += stored;
    }
  }
  return counts;
}
