import "server-only";
import { promptParts, promptTokenBound } from "@/lib/providers/tokens";
import type { ChatMessage, ToolDefinition } from "@/lib/providers/types";
import { countTokensOffLoop, truncateTokensOffLoop } from "@/lib/cpu/pool";

/** Tokens kept free for each cut result's marker (and the slack of counting a cut text again). */
const MARKER_TOKENS = 32;

const truncationMarker = (omittedChars: number) => `…[truncated: ${omittedChars} characters omitted]`;

/** Per-result token limits so all fit in `room` (water-filling: results under the level stay whole, undefined). */
function levels(tokens: number[], room: number): (number | undefined)[] {
  const order = tokens.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t);
  const out: (number | undefined)[] = tokens.map(() => undefined);
  let left = room;
  for (let k = 0; k < order.length; k++) {
    const share = Math.floor(left / (order.length - k));
    if (order[k]!.t <= share) {
      left -= order[k]!.t;
      continue;
    }
    const level = Math.max(0, share - MARKER_TOKENS);
    for (const { i } of order.slice(k)) out[i] = level;
    break;
  }
  return out;
}

/**
 * This round's tool results cut, largest first with a visible marker, so the next prompt fits
 * `budget`: a tool may return far more than a context holds. Counting runs in the CPU worker;
 * `promptTokens` is an upper estimate.
 */
export async function fitToolResults(args: {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  results: { id: string; content: string }[];
  budget: number;
}): Promise<{ contents: string[]; cut: { index: number; omitted_chars: number }[]; promptTokens: number }> {
  const contents = args.results.map((r) => r.content);
  const shells: ChatMessage[] = args.results.map((r) => ({ role: "tool", tool_call_id: r.id, content: "" }));
  const all: ChatMessage[] = [
    ...args.messages,
    ...args.results.map((r): ChatMessage => ({ role: "tool", tool_call_id: r.id, content: r.content })),
  ];
  const bound = promptTokenBound(all, args.tools);
  if (bound <= args.budget) return { contents, cut: [], promptTokens: bound };

  const { texts, fixed } = promptParts([...args.messages, ...shells], args.tools);
  const rest = await countTokensOffLoop(texts, Math.max(0, args.budget - fixed));
  const room = rest === null ? 0 : args.budget - fixed - rest;
  const counts = await Promise.all(
    contents.map(async (c) => (await countTokensOffLoop([c], Math.max(0, room))) ?? room + 1),
  );
  const base = fixed + (rest ?? args.budget);
  if (counts.reduce((a, b) => a + b, 0) <= room)
    return { contents, cut: [], promptTokens: base + counts.reduce((a, b) => a + b, 0) };

  const cut: { index: number; omitted_chars: number }[] = [];
  const caps = levels(counts, room);
  let promptTokens = base;
  for (const [index, cap] of caps.entries()) {
    promptTokens += cap === undefined ? counts[index]! : cap + MARKER_TOKENS;
    if (cap === undefined) continue;
    const kept = cap > 0 ? (await truncateTokensOffLoop(contents[index]!, cap)).text : "";
    const omitted = contents[index]!.length - kept.length;
    contents[index] = kept + truncationMarker(omitted);
    cut.push({ index, omitted_chars: omitted });
  }
  return { contents, cut, promptTokens };
}
