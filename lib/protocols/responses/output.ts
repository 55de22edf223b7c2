import type { ToolCall } from "@/lib/providers/types";

/** A stored message as the Responses and Conversations APIs read it. */
export interface ItemSource {
  id: string;
  role: string;
  content: unknown;
  extra: Record<string, unknown> | null;
}

/**
 * A function_call item's id, derived from the message that holds the call: `fc_` + the message
 * id's random part (+ `_<n>` after its first call), so an item id leads back to its message.
 */
export function functionCallItemId(messageId: string, index: number): string {
  const base = `fc_${messageId.slice(messageId.indexOf("_") + 1)}`;
  return index === 0 ? base : `${base}_${index}`;
}

/** The message id (and call index) an item id names: message items are their message's id. */
export function messageIdOfItem(itemId: string): { messageId: string; callIndex?: number } {
  if (!itemId.startsWith("fc_")) return { messageId: itemId };
  const [random, n] = itemId.slice(3).split("_");
  return { messageId: `msg_${random}`, callIndex: n === undefined ? 0 : Number(n) };
}

type StoredPart = { type: string; text?: string; image_url?: { url: string; detail?: string } };

function contentParts(content: unknown, output: boolean) {
  const parts: StoredPart[] =
    typeof content === "string" ? [{ type: "text", text: content }] : ((content ?? []) as StoredPart[]);
  return parts.map((p) => {
    if (p.type === "image_url")
      return {
        type: "input_image",
        image_url: p.image_url?.url ?? null,
        detail: p.image_url?.detail ?? "auto",
        file_id: null,
      };
    return output
      ? { type: "output_text", text: p.text ?? "", annotations: [], logprobs: [] }
      : { type: "input_text", text: p.text ?? "" };
  });
}

export function outputTextItem(id: string, text: string, status = "completed") {
  return {
    id,
    type: "message" as const,
    status,
    role: "assistant" as const,
    content: [{ type: "output_text" as const, text, annotations: [], logprobs: [] }],
  };
}

export function functionCallItem(messageId: string, index: number, call: ToolCall, status = "completed") {
  return {
    id: functionCallItemId(messageId, index),
    type: "function_call" as const,
    status,
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  };
}

/**
 * A stored message as Responses items: a message item for its text, one function_call item per
 * tool call of an assistant turn, a function_call_output item for a tool message.
 */
export function toItems(m: ItemSource): Record<string, unknown>[] {
  const extra = m.extra ?? {};
  if (m.role === "tool") {
    return [
      {
        id: m.id,
        type: "function_call_output",
        status: "completed",
        call_id: typeof extra.tool_call_id === "string" ? extra.tool_call_id : "",
        output: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
      },
    ];
  }
  const items: Record<string, unknown>[] = [];
  const calls = Array.isArray(extra.tool_calls) ? (extra.tool_calls as ToolCall[]) : [];
  const empty = m.content === null || m.content === "" || (Array.isArray(m.content) && m.content.length === 0);
  if (!empty || calls.length === 0) {
    const output = m.role === "assistant";
    items.push({
      id: m.id,
      type: "message",
      status: "completed",
      role: m.role,
      content: contentParts(m.content, output),
    });
  }
  calls.forEach((c, i) => items.push(functionCallItem(m.id, i, c)));
  return items;
}

export interface UsageCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export function toResponseUsage(u: UsageCounts) {
  return {
    input_tokens: u.promptTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens },
    output_tokens: u.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.promptTokens + u.completionTokens,
  };
}

/** A run's status and finish reason as a response's `status` and `incomplete_details`. */
export function responseStatus(
  status: string,
  finishReason: string | null,
): { status: string; incomplete_details: { reason: string } | null } {
  if (status === "completed" && finishReason === "length")
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (status === "queued" || status === "in_progress" || status === "completed" || status === "failed")
    return { status, incomplete_details: null };
  return { status: "cancelled", incomplete_details: null };
}

/** What a response object is made of: from a run that just ended, or from its stored row. */
export interface ResponseRecord {
  id: string;
  createdAt: number;
  status: string;
  finishReason: string | null;
  model: string;
  error: { code: string; message: string } | null;
  usage: UsageCounts | null;
  costOt: number;
  appliedRules: unknown[];
  output: Record<string, unknown>[];
  previousResponseId: string | null;
  conversationId: string | null;
  /** The request fields echoed (runs.request). */
  request: Record<string, unknown>;
}

/** OpenAI's `response` object (to the field), plus our `applied_rules` and `cost_ot`. */
export function toResponseObject(r: ResponseRecord) {
  const req = r.request;
  const { status, incomplete_details } = responseStatus(r.status, r.finishReason);
  return {
    id: r.id,
    object: "response" as const,
    created_at: r.createdAt,
    status,
    background: false,
    error: r.error,
    incomplete_details,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    model: r.model,
    output: r.output,
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: r.previousResponseId,
    conversation: r.conversationId ? { id: r.conversationId } : null,
    reasoning: { effort: null, summary: null },
    store: req.store ?? true,
    temperature: req.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: req.tool_choice ?? "auto",
    tools: req.tools ?? [],
    top_p: req.top_p ?? 1,
    truncation: "disabled",
    usage: r.usage ? toResponseUsage(r.usage) : null,
    user: null,
    metadata: req.metadata ?? {},
    applied_rules: r.appliedRules,
    cost_ot: r.costOt,
  };
}
export type ResponseObject = ReturnType<typeof toResponseObject>;
