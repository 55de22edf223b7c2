import type { CompletionRequest } from "@/lib/completions/run-completion";
import type { ChatMessage, ContentPart, ToolCall, ToolDefinition } from "@/lib/providers/types";
import type {
  AnthropicInputMessage,
  AnthropicTool,
  ContentBlock,
  CountTokensInput,
  ImageBlock,
  MessagesInput,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./schemas";

/**
 * An Anthropic request in the pipeline's chat terms (OpenAI Chat Completions' format): its
 * `system` and each mid-conversation system message become instruction layers, and the thread
 * stores the conversation with `system` first and system messages in place.
 */
export type ChatPrompt = Pick<
  CompletionRequest,
  "instructions" | "messages" | "inputMessages" | "tools" | "toolChoice" | "params" | "maxOutputTokens"
>;

const isType =
  <B extends ContentBlock>(type: string) =>
  (b: ContentBlock): b is B & ContentBlock =>
    b.type === type;
const isText = isType<TextBlock>("text");
const isImage = isType<ImageBlock>("image");
const isToolUse = isType<ToolUseBlock>("tool_use");
const isToolResult = isType<ToolResultBlock>("tool_result");

/** `system` as one text: its text blocks, in order (cache_control and the like dropped). */
function systemText(system: MessagesInput["system"]): string {
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  return system
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .filter(Boolean)
    .join("\n\n");
}

/** An image block as the chat format's image part; a source we cannot resolve (a Files API id) gives none. */
function imagePart(block: ImageBlock): ContentPart | null {
  const s = block.source;
  if (s.type === "base64")
    return { type: "image_url", image_url: { url: `data:${String(s.media_type)};base64,${String(s.data)}` } };
  if (s.type === "url") return { type: "image_url", image_url: { url: String(s.url) } };
  return null;
}

/** The text and image parts of some blocks; one text alone stays a plain string. */
function userContent(blocks: ContentBlock[]): ChatMessage["content"] {
  const parts: ContentPart[] = [];
  for (const b of blocks) {
    if (isText(b)) {
      if (b.text) parts.push({ type: "text", text: b.text });
    } else if (isImage(b)) {
      const part = imagePart(b);
      if (part) parts.push(part);
    }
  }
  if (parts.length === 0) return null;
  if (parts.length === 1 && parts[0]!.type === "text") return (parts[0] as { text: string }).text;
  return parts;
}

/** A tool result's content as the tool message's text; an error result says so. */
function toolResultText(block: ToolResultBlock): string {
  const c = block.content;
  let text = "";
  if (typeof c === "string") text = c;
  else if (Array.isArray(c))
    text = c
      .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
      .filter(Boolean)
      .join("\n");
  return block.is_error ? `Error: ${text}` : text;
}

function toolCall(block: ToolUseBlock): ToolCall {
  return {
    id: block.id,
    type: "function",
    function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
  };
}

/**
 * One Anthropic message as chat messages: a user turn's tool results become `tool` messages (first,
 * as the chat format wants them right after the assistant's calls) followed by the rest of the
 * turn; an assistant turn's tool_use blocks become its `tool_calls`. Blocks we cannot honour
 * (thinking, server tool results, documents) are left out; a turn left empty is dropped.
 */
function toChatMessages(message: AnthropicInputMessage): ChatMessage[] {
  const { role, content } = message;
  if (role === "system") {
    const text = typeof content === "string" ? content : systemText(content);
    return text ? [{ role: "system", content: text }] : [];
  }
  if (typeof content === "string") return content ? [{ role, content }] : [];
  if (role === "assistant") {
    const text = content
      .filter(isText)
      .map((b) => b.text)
      .join("");
    const calls = content.filter(isToolUse).map(toolCall);
    if (!text && calls.length === 0) return [];
    return [{ role, content: text || (calls.length ? null : ""), ...(calls.length ? { tool_calls: calls } : {}) }];
  }
  const out: ChatMessage[] = content
    .filter(isToolResult)
    .map((b) => ({ role: "tool", tool_call_id: b.tool_use_id, content: toolResultText(b) }));
  const rest = userContent(content);
  if (rest !== null) out.push({ role: "user", content: rest });
  return out;
}

/** Client tools as function tools; server tools (typed, without an input schema) are not ours to run. */
function chatTools(tools: AnthropicTool[] | undefined): ToolDefinition[] | undefined {
  const out: ToolDefinition[] = [];
  for (const t of tools ?? []) {
    if (t.type && t.type !== "custom") continue;
    out.push({
      type: "function",
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.input_schema ?? { type: "object", properties: {} },
      },
    });
  }
  return out.length ? out : undefined;
}

function chatToolChoice(choice: MessagesInput["tool_choice"]): unknown {
  switch (choice?.type) {
    case "auto":
      return "auto";
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return { type: "function", function: { name: choice.name } };
    default:
      return undefined;
  }
}

/** What a count_tokens call and a message call share: the system prompt, the conversation and the tools. */
export function toChatPrompt(input: CountTokensInput | MessagesInput): ChatPrompt {
  const system = systemText(input.system);
  const converted = input.messages.flatMap(toChatMessages);
  const inputMessages: ChatMessage[] = [...(system ? [{ role: "system", content: system }] : []), ...converted];
  const tools = chatTools(input.tools);
  const params: Record<string, unknown> = {};
  const full = input as Partial<MessagesInput>;
  if (full.temperature !== undefined) params.temperature = full.temperature;
  if (full.top_p !== undefined) params.top_p = full.top_p;
  if (full.stop_sequences?.length) params.stop = full.stop_sequences;
  const user = full.metadata?.user_id;
  if (typeof user === "string" && user.length <= 256) params.user = user;
  // top_k has no counterpart in the chat format: not honoured.
  if (tools && input.tool_choice?.disable_parallel_tool_use) params.parallel_tool_calls = false;
  return {
    instructions: inputMessages.filter((m) => m.role === "system").map((m) => m.content as string),
    messages: converted.filter((m) => m.role !== "system"),
    inputMessages,
    ...(tools ? { tools, toolChoice: chatToolChoice(input.tool_choice) } : {}),
    params,
    maxOutputTokens: full.max_tokens,
  };
}
