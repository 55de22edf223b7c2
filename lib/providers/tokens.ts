import { createRequire } from "node:module";
import { imagePartTokens } from "./image-tokens";
import type { ChatMessage, ToolDefinition } from "./types";

type O200k = typeof import("gpt-tokenizer/encoding/o200k_base");
let o200k: O200k | undefined;

/**
 * The o200k_base tokenizer, loaded on first use: its tables cost ~65 MiB of memory, which a
 * gateway whose upstreams report usage (and whose prompts are small, see promptTokenBound) never
 * needs. Synchronous: a cold load takes ~150 ms once per process.
 */
export function tokenizer(): O200k {
  return (o200k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as O200k);
}

/** Token counts with a real BPE tokenizer (o200k_base, GPT-4o's), for local models and for providers that report no usage. */
export function countTextTokens(text: string): number {
  if (!text) return 0;
  if (text.length > LONG_RUN_CHARS && LONG_RUN.test(text)) return countTamed(text);
  return countPlain(text);
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

// Special-token strings in user text ("<|endoftext|>") are counted as plain text, never thrown
// on. Passing options costs ~20 µs per call (the tokenizer rebuilds its matcher), so only then.
const countPlain = (text: string) => (text.includes("<|") ? tokenizer().countTokens(text, PLAIN_TEXT) : tokenizer().countTokens(text));

/**
 * BPE merging is quadratic in the length of one pre-token, and a run without whitespace is one
 * pre-token: `"a".repeat(50_000)` took 1.2 s to count, on the event loop. A run longer than
 * LONG_RUN_CHARS is counted in slices of SLICE_CHARS (the slices' counts add up to about the
 * whole's, a few tokens more at most: an estimate for holds and for providers that report no
 * usage, never below what the text costs). The CPU worker (lib/workers/cpu-worker.mjs) does the same.
 */
const LONG_RUN_CHARS = 512;
const SLICE_CHARS = 256;
const LONG_RUN = new RegExp(`\\S{${LONG_RUN_CHARS + 1},}`);
const LONG_RUNS = new RegExp(LONG_RUN.source, "g");

function countTamed(text: string): number {
  let n = 0;
  let at = 0;
  for (const m of text.matchAll(LONG_RUNS)) {
    if (m.index > at) n += countPlain(text.slice(at, m.index));
    for (let i = 0; i < m[0].length; i += SLICE_CHARS) n += countPlain(m[0].slice(i, i + SLICE_CHARS));
    at = m.index + m[0].length;
  }
  if (at < text.length) n += countPlain(text.slice(at));
  return n;
}

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** OpenAI's chat framing: ~3 tokens per message plus 3 to prime the reply. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

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

function imageTokens(content: ChatMessage["content"]): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const p of content) if (p.type === "image_url") n += imagePartTokens(p as { image_url?: { url?: unknown; detail?: unknown } });
  return n;
}

/**
 * A prompt in OpenAI's chat framing: the texts a tokenizer must measure, and the tokens that need
 * none (framing and images, by the provider's image rule).
 */
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

function promptSize(messages: ChatMessage[], tools: ToolDefinition[] | undefined, measure: (text: string) => number): number {
  const { texts, fixed } = promptParts(messages, tools);
  return texts.reduce((n, t) => n + measure(t), fixed);
}

export function countPromptTokens(messages: ChatMessage[], tools?: ToolDefinition[]): number {
  return promptSize(messages, tools, countTextTokens);
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * An upper bound of countPromptTokens without the tokenizer: every BPE token stands for at least
 * one byte of its text, so a text never has more tokens than UTF-8 bytes.
 */
export function promptTokenBound(messages: ChatMessage[], tools?: ToolDefinition[]): number {
  return promptSize(messages, tools, utf8Bytes);
}
