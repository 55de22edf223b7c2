import { messageText } from "../tokens";
import type { ChatChunk, ChatMessage, ChatRequest, ChatResult, ContentPart, ToolCall, Usage } from "../types";

/**
 * OpenAI Chat Completions ⇄ Anthropic Messages (https://docs.anthropic.com/en/api/messages),
 * both ways, as pure functions: request, response, stream events, tools and images.
 */
export const ANTHROPIC_VERSION = "2023-06-01";
const DEFAULT_MAX_TOKENS = 4096;

type Block =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string } }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string };

interface AnthropicMessage {
  role: "user" | "assistant";
  content: Block[];
}

function imageBlock(url: string): Block {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (m) return { type: "image", source: { type: "base64", media_type: m[1]!, data: m[2]! } };
  return { type: "image", source: { type: "url", url } };
}

function contentBlocks(content: ChatMessage["content"]): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content as ContentPart[]) {
    if (part.type === "text") blocks.push({ type: "text", text: String((part as { text: unknown }).text ?? "") });
    else if (part.type === "image_url") blocks.push(imageBlock((part as { image_url: { url: string } }).image_url.url));
  }
  return blocks;
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args || "{}");
  } catch {
    return {};
  }
}

function toolChoice(choice: unknown): Record<string, unknown> | undefined {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  if (choice && typeof choice === "object") {
    const name = (choice as { function?: { name?: string } }).function?.name;
    if (name) return { type: "tool", name };
  }
  return undefined;
}

export function toAnthropicRequest(req: ChatRequest, stream: boolean) {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: AnthropicMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const prev = messages.at(-1);
    // Anthropic wants user/assistant turns; consecutive same-role messages become one turn.
    if (prev?.role === role) prev.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    if (m.role === "system" || m.role === "developer") system.push(messageText(m.content));
    else if (m.role === "assistant") {
      const blocks = contentBlocks(m.content);
      for (const call of m.tool_calls ?? []) {
        blocks.push({
          type: "tool_use",
          id: call.id,
          name: call.function.name,
          input: parseArgs(call.function.arguments),
        });
      }
      push("assistant", blocks);
    } else if (m.role === "tool") {
      push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id ?? "", content: messageText(m.content) }]);
    } else push("user", contentBlocks(m.content));
  }
  const p = req.params;
  const stop = typeof p.stop === "string" ? [p.stop] : Array.isArray(p.stop) ? p.stop : undefined;
  let choice = toolChoice(req.toolChoice);
  // OpenAI's parallel_tool_calls:false is a flag on Anthropic's tool_choice, which then must be explicit.
  if (p.parallel_tool_calls === false && choice?.type !== "none")
    choice = { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true };
  return {
    model: req.model,
    max_tokens: req.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
    ...(system.length ? { system: system.join("\n\n") } : {}),
    messages,
    ...(typeof p.temperature === "number" ? { temperature: Math.min(p.temperature, 1) } : {}),
    // Newer Claude models refuse temperature and top_p together; temperature wins, as it is the usual knob.
    ...(typeof p.top_p === "number" && typeof p.temperature !== "number" ? { top_p: p.top_p } : {}),
    ...(stop ? { stop_sequences: stop } : {}),
    ...(typeof p.user === "string" ? { metadata: { user_id: p.user } } : {}),
    // With tool_choice "none" the tools are still sent (as {type:"none"}): a conversation that
    // already holds tool_use/tool_result blocks needs its tools defined.
    ...(req.tools?.length
      ? {
          tools: req.tools.map((t) => ({
            name: t.function.name,
            description: t.function.description,
            input_schema: t.function.parameters ?? { type: "object", properties: {} },
          })),
          ...(choice ? { tool_choice: choice } : {}),
        }
      : {}),
    ...(stream ? { stream: true } : {}),
  };
}

/** @internal */
export function finishReason(stop: string | null | undefined): string {
  switch (stop) {
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Anthropic counts cache reads and writes apart from input_tokens; OpenAI's prompt_tokens includes them.
 * @internal
 */
export function fromAnthropicUsage(u: AnthropicUsage | undefined): Usage | null {
  if (!u || typeof u.input_tokens !== "number") return null;
  const cached = u.cache_read_input_tokens ?? 0;
  return {
    promptTokens: u.input_tokens + cached + (u.cache_creation_input_tokens ?? 0),
    completionTokens: u.output_tokens ?? 0,
    cachedTokens: cached,
  };
}

export function fromAnthropicResponse(json: {
  model?: string;
  content?: Block[];
  stop_reason?: string;
  usage?: AnthropicUsage;
}): ChatResult {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const b of json.content ?? []) {
    if (b.type === "text") text.push(b.text);
    else if (b.type === "tool_use")
      toolCalls.push({
        id: b.id,
        type: "function",
        function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
      });
  }
  return {
    ...(json.model ? { model: json.model } : {}),
    content: text.length ? text.join("") : toolCalls.length ? null : "",
    toolCalls,
    finishReason: finishReason(json.stop_reason),
    usage: fromAnthropicUsage(json.usage),
  };
}

export interface AnthropicStreamEvent {
  type?: string;
  index?: number;
  message?: { usage?: AnthropicUsage };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string };
  usage?: { output_tokens?: number };
  error?: { message?: string };
}

/** Stateful translation of Messages stream events into chat chunks. */
export function anthropicStreamTranslator() {
  let usage: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  const toolIndex = new Map<number, number>();
  return (type: string, data: AnthropicStreamEvent): ChatChunk | null => {
    switch (type) {
      case "message_start": {
        usage = fromAnthropicUsage(data.message?.usage) ?? usage;
        return null;
      }
      case "content_block_start": {
        const block = data.content_block;
        if (block?.type === "tool_use") {
          const index = toolIndex.size;
          toolIndex.set(data.index ?? 0, index);
          return {
            toolCalls: [{ index, id: block.id, type: "function", function: { name: block.name ?? "", arguments: "" } }],
          };
        }
        if (block?.type === "text" && block.text) return { content: block.text };
        return null;
      }
      case "content_block_delta": {
        const d = data.delta;
        if (d?.type === "text_delta") return { content: d.text ?? "" };
        if (d?.type === "input_json_delta") {
          return {
            toolCalls: [{ index: toolIndex.get(data.index ?? 0) ?? 0, function: { arguments: d.partial_json ?? "" } }],
          };
        }
        return null;
      }
      case "message_delta": {
        if (typeof data.usage?.output_tokens === "number")
          usage = { ...usage, completionTokens: data.usage.output_tokens };
        return { finishReason: finishReason(data.delta?.stop_reason), usage };
      }
      default:
        return null;
    }
  };
}
