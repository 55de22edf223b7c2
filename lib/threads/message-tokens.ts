import "server-only";
import { countTextTokens, messageText } from "@/lib/providers/tokens";
import type { ChatMessage } from "@/lib/providers/types";
import { countTokensOffLoop } from "@/lib/cpu/pool";

/** A message whose texts are longer than this is counted in the CPU worker, not on the event loop. */
const COUNT_OFF_LOOP_ABOVE_CHARS = 16 * 1024;

/** The texts of a message a tokenizer measures (lib/providers/tokens.ts promptParts: framing and images aside). */
export function messageTexts(m: Pick<ChatMessage, "role" | "content" | "tool_calls" | "name">): string[] {
  const texts = [m.role, messageText(m.content)];
  if (m.tool_calls) texts.push(JSON.stringify(m.tool_calls));
  if (m.name) texts.push(m.name);
  return texts;
}

/** o200k tokens of a message's texts, as the history budget sums them: short on the event loop, long in the CPU worker. */
export async function messageTokens(m: Pick<ChatMessage, "role" | "content" | "tool_calls" | "name">): Promise<number> {
  const texts = messageTexts(m);
  let chars = 0;
  for (const t of texts) chars += t.length;
  if (chars <= COUNT_OFF_LOOP_ABOVE_CHARS) return texts.reduce((n, t) => n + countTextTokens(t), 0);
  return (await countTokensOffLoop(texts, Number.MAX_SAFE_INTEGER)) ?? 0;
}
