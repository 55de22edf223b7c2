import { countImages, countTextTokens, messageText } from "../tokens";
import type { ChatMessage, ChatRequest, Passage, ToolCall } from "../types";

/** The offline `local` models (CONTRACT 7), a pure function of the request so the pipeline tests deterministically. */
export type LocalReply = { kind: "text"; text: string } | { kind: "tool_call"; call: ToolCall };

function lastUserMessage(messages: ChatMessage[]): ChatMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i];
  return undefined;
}

/** Characters firstJsonObject may scan in all: each `{` scans to its closing brace, so "{{{{…" would be quadratic. */
const JSON_SCAN_CHARS = 1_000_000;

/**
 * The first balanced JSON object in the text that parses, or null (also past JSON_SCAN_CHARS of scanning).
 * @internal
 */
export function firstJsonObject(text: string): Record<string, unknown> | null {
  return findJsonObject(text)?.value ?? null;
}

/**
 * The local model's call arguments: the text's first JSON object, re-serialised compactly (as
 * written when too deep for JSON.stringify); `{}` when there is none.
 */
function callArguments(text: string): string {
  const found = findJsonObject(text);
  if (!found) return "{}";
  try {
    return JSON.stringify(found.value);
  } catch {
    return found.source;
  }
}

function findJsonObject(text: string): { value: Record<string, unknown>; source: string } | null {
  let budget = JSON_SCAN_CHARS;
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      if (--budget < 0) return null;
      const ch = text[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        try {
          const source = text.slice(start, i + 1);
          const value: unknown = JSON.parse(source);
          if (value && typeof value === "object" && !Array.isArray(value))
            return { value: value as Record<string, unknown>, source };
        } catch {
          // not JSON; try the next brace
        }
        break;
      }
    }
  }
  return null;
}

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * The passage sharing the most words with the question (ties: the earlier, i.e. better-ranked, one).
 * @internal
 */
export function bestPassage(passages: Passage[], question: string): Passage | undefined {
  const q = words(question);
  let best: Passage | undefined;
  let bestScore = -1;
  for (const p of passages) {
    let score = 0;
    for (const w of words(p.text)) if (q.has(w)) score++;
    if (score > bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best;
}

function forcedTool(toolChoice: unknown): string | undefined {
  if (toolChoice && typeof toolChoice === "object") {
    const fn = (toolChoice as { function?: { name?: unknown } }).function;
    if (typeof fn?.name === "string") return fn.name;
  }
  return undefined;
}

/** Stable id derived from the conversation, so the same request always yields the same call. */
function callId(seed: string): string {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  return `call_${h.toString(36)}${seed.length.toString(36)}`;
}

export function localReply(req: ChatRequest): LocalReply {
  const last = req.messages.at(-1);
  const user = lastUserMessage(req.messages);
  const userText = user ? messageText(user.content) : "";

  // A tool result came back: answer with it.
  if (last?.role === "tool") {
    const result = messageText(last.content);
    let json = result;
    try {
      json = JSON.stringify(JSON.parse(result));
    } catch {
      json = JSON.stringify(result);
    }
    return { kind: "text", text: `The tool returned ${json}.` };
  }

  const offered = new Set((req.tools ?? []).map((t) => t.function.name));
  if (offered.size > 0 && req.toolChoice !== "none") {
    let name = forcedTool(req.toolChoice);
    if (!name) {
      // The first "call <name>" naming an offered tool: "I'll call you back; call get_weather" still calls.
      name = [...userText.matchAll(/\bcall\s+([\w-]+)/gi)].map((m) => m[1]!).find((asked) => offered.has(asked));
    }
    if (!name && req.toolChoice === "required") name = [...offered][0];
    if (name && offered.has(name)) {
      return {
        kind: "tool_call",
        call: {
          id: callId(`${name}:${userText}:${req.messages.length}`),
          type: "function",
          function: { name, arguments: callArguments(userText) },
        },
      };
    }
  }

  const images = user ? countImages(user.content) : 0;
  if (images > 0) {
    const notes = req.imageNotes?.filter(Boolean) ?? [];
    const extracted = notes.length ? ` Extracted from them: ${notes.join(" | ")}` : " Nothing was extracted from them.";
    return { kind: "text", text: `I received ${images === 1 ? "1 image" : `${images} images`}.${extracted}` };
  }

  if (req.passages?.length) {
    const best = bestPassage(req.passages, userText)!;
    const source = best.filename ? ` (${best.filename})` : "";
    return { kind: "text", text: `According to the provided context${source}: "${best.text.trim()}"` };
  }

  const quoted = userText.trim().replace(/\s+/g, " ");
  if (!quoted)
    return { kind: "text", text: "Hello! I am the offline local model; send me a message and I will answer it." };
  const shown = quoted.length > 400 ? `${quoted.slice(0, 400)}…` : quoted;
  return {
    kind: "text",
    text: `You said: "${shown}" (${countTextTokens(quoted)} tokens). This is a deterministic reply from the offline local model.`,
  };
}

/** Splits text into chunks of a few words for streaming; joining them gives back the text. */
export function chunkText(text: string, wordsPerChunk = 3): string[] {
  const parts = text.match(/\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += wordsPerChunk) chunks.push(parts.slice(i, i + wordsPerChunk).join(""));
  return chunks.length ? chunks : [""];
}
