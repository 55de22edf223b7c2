import { createRequire } from "node:module";
import { SLICE_CHARS, tokenSlices, truncateTokens } from "./token-slices.mjs";
import { imagePartTokens } from "./image-tokens";
import type { ChatMessage, ToolDefinition } from "./types";

type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");
let o200k: O200k | undefined;

/**
 * The o200k_base tokenizer, loaded on first use: its tables are large and many gateways never need them.
 * @internal
 */
export function tokenizer(): O200k {
  return (o200k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200k);
}

/**
 * Token counts with o200k_base (GPT-4o's), for local models and providers that report no usage. A
 * text with a long run is counted in slices: at most a few tokens over, never under.
 */
export function countTextTokens(text: string): number {
  if (!text) return 0;
  if (text.length <= WHOLE_CHARS) return countPlain(text);
  const pieces = tokenSlices(text);
  if (pieces.length === 1) return countPlain(text);
  let n = 0;
  for (const piece of pieces) n += countPlain(piece);
  return n;
}

/** A text this short holds no pre-token long enough to matter: counted whole, with no scan. */
const WHOLE_CHARS = 2 * SLICE_CHARS;

/** Characters counted between two yields to the event loop by countTokensYielding. */
const YIELD_EVERY_CHARS = 64 * 1024;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Like countTextTokens over all texts, yielding every YIELD_EVERY_CHARS so a huge prompt never blocks the loop. */
export async function countTokensYielding(texts: string[]): Promise<number> {
  let n = 0;
  let since = 0;
  for (const text of texts) {
    for (const piece of text.length <= YIELD_EVERY_CHARS ? [text] : windows(text)) {
      n += countTextTokens(piece);
      since += piece.length;
      if (since >= YIELD_EVERY_CHARS) {
        since = 0;
        await yieldToLoop();
      }
    }
  }
  return n;
}

/** The text in windows of about YIELD_EVERY_CHARS, cut only where tokenSlices would cut or at whitespace. */
function windows(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (const piece of tokenSlices(text)) {
    if (piece.length > YIELD_EVERY_CHARS) {
      // Ordinary text: cut before a space, where a pre-token starts.
      for (let at = 0; at < piece.length;) {
        let end = Math.min(piece.length, at + YIELD_EVERY_CHARS);
        const space = end < piece.length ? piece.lastIndexOf(" ", end) : -1;
        if (space > at) end = space;
        if (cur) out.push(cur);
        cur = "";
        out.push(piece.slice(at, end));
        at = end;
      }
      continue;
    }
    cur += piece;
    if (cur.length >= YIELD_EVERY_CHARS) {
      out.push(cur);
      cur = "";
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Counts of texts that recur call after call (system prompts, tool lists, roles), bounded. */
const repeatedCounts = new Map<string, number>();
const REPEATED_COUNTS_MAX = 512;

/** countTextTokens for a text that recurs: counted once, then looked up (oldest dropped past the bound). */
export function countRepeatedTextTokens(text: string): number {
  let n = repeatedCounts.get(text);
  if (n === undefined) {
    n = countTextTokens(text);
    if (repeatedCounts.size >= REPEATED_COUNTS_MAX) repeatedCounts.delete(repeatedCounts.keys().next().value!);
    repeatedCounts.set(text, n);
  }
  return n;
}

// Special-token strings in user text ("<|endoftext|>") count as plain text, never throw. Options
// make the tokenizer rebuild its matcher, so they are passed only then.
const countPlain = (text: string) =>
  text.includes("<|") ? tokenizer().countTokens(text, PLAIN_TEXT) : tokenizer().countTokens(text);
const encodePlain = (text: string) =>
  text.includes("<|") ? tokenizer().encode(text, PLAIN_TEXT) : tokenizer().encode(text);

/** The text cut to its first `maxTokens` tokens (lib/providers/token-slices.mjs); work bounded by maxTokens. */
export function truncateTextTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  return truncateTokens({ encode: encodePlain, decode: (tokens) => tokenizer().decode(tokens) }, text, maxTokens);
}

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** OpenAI's chat framing: ~3 tokens per message plus 3 to prime the reply. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

export function messageText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) =>
      p.type === "text" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "",
    )
    .filter(Boolean)
    .join("\n");
}

export function countImages(content: ChatMessage["content"]): number {
  return Array.isArray(content) ? content.filter((p) => p.type === "image_url").length : 0;
}

function imageTokens(content: ChatMessage["content"]): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const p of content)
    if (p.type === "image_url") n += imagePartTokens(p as { image_url?: { url?: unknown; detail?: unknown } });
  return n;
}

/** A prompt in OpenAI's chat framing: texts to tokenize, and tokens that need no tokenizer (framing, images). */
export function promptParts(messages: ChatMessage[], tools?: ToolDefinition[]): { texts: string[]; fixed: number } {
  let fixed = REPLY_PRIMING;
  const texts: string[] = [];
  for (const m of messages) {
    fixed += PER_MESSAGE + imageTokens(m.content);
    texts.push(m.role, messageText(m.content));
    if (m.tool_calls) texts.push(JSON.stringify(m.tool_calls));
    if (m.name) texts.push(m.name);
  }
  if (tools?.length) texts.push(JSON.stringify(tools));
  return { texts, fixed };
}

function promptSize(
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  measure: (text: string) => number,
): number {
  const { texts, fixed } = promptParts(messages, tools);
  return texts.reduce((n, t) => n + measure(t), fixed);
}

export function countPromptTokens(messages: ChatMessage[], tools?: ToolDefinition[]): number {
  return promptSize(messages, tools, countTextTokens);
}

/** countPromptTokens yielding to the event loop as it goes (countTokensYielding). */
export async function countPromptTokensYielding(messages: ChatMessage[], tools?: ToolDefinition[]): Promise<number> {
  const { texts, fixed } = promptParts(messages, tools);
  return fixed + (await countTokensYielding(texts));
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** An upper bound of countPromptTokens without the tokenizer: a BPE token covers at least one UTF-8 byte. */
export function promptTokenBound(messages: ChatMessage[], tools?: ToolDefinition[]): number {
  return promptSize(messages, tools, utf8Bytes);
}
