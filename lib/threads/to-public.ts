import type { Message, Thread } from "@/db/schema";
import { toUnix } from "@/lib/time";

/** CONTRACT 5.6 thread body. */
export function toPublicThread(t: Thread) {
  return {
    id: t.id,
    object: "thread" as const,
    created_at: toUnix(t.createdAt),
    metadata: t.metadata,
    source: t.source,
  };
}

/** The panel's list item: the thread plus a line of its conversation (and of the match, with a search). */
export function toPanelThread(t: Thread, preview: { preview: string | null; match: string | null } | undefined) {
  return { ...toPublicThread(t), preview: preview?.preview ?? null, match: preview?.match ?? null };
}

/** CONTRACT 5.6 message body; `content` is what the thread stores (a data: image as its digest). */
export function toPublicMessage(m: Message) {
  return {
    id: m.id,
    object: "thread.message" as const,
    thread_id: m.threadId,
    role: m.role,
    content: m.content,
    created_at: toUnix(m.createdAt),
    run_id: m.runId,
  };
}
