import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { ChatMessage, ToolDefinition } from "./types";

/** Token counts with a real BPE tokenizer (o200k_base, GPT-4o's), for local models and for providers that report no usage. */
export function countTextTokens(text: string): number {
  if (!text) return 0;
  // Special-token strings in user text ("<|endoftext|>") are counted as plain text, never thrown
  // on. Passing options costs ~20 µs per call (the tokenizer rebuilds its matcher), so only then.
  return text.includes("<|") ? countTokens(text, PLAIN_TEXT) : countTokens(text);
}

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** OpenAI's chat framing: ~3 tokens per message plus 3 to prime the reply. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;
/** Images are billed by providers by size; without decoding we count a low-detail tile. */
const IMAGE_TOKENS = 85;

export function messageText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p.type === "text" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : ""))
    .filter(Boolean)
    .join("\n");
}

export function countImages(content: ChatMessage["content"]): number {
  return Array.isArray(content) ? content.filter((p) => p.type === "image_url").length : 0;
}

export function countPromptTokens(messages: ChatMessage[], tools?: ToolDefinition[]): number {
  let n = REPLY_PRIMING;
  for (const m of messages) {
    n += PER_MESSAGE + countTextTokens(m.role) + countTextTokens(messageText(m.content)) + countImages(m.content) * IMAGE_TOKENS;
    if (m.tool_calls) n += countTextTokens(JSON.stringify(m.tool_calls));
    if (m.name) n += countTextTokens(m.name);
  }
  if (tools?.length) n += countTextTokens(JSON.stringify(tools));
  return n;
}
