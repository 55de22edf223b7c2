import type { ChatUsage, WireMessage } from "./stream-chat";

interface UserTurn {
  id: string;
  role: "user";
  content: string;
}

export const ANSWER_STATE = { streaming: "streaming", done: "done", stopped: "stopped", error: "error" } as const;
type AnswerState = (typeof ANSWER_STATE)[keyof typeof ANSWER_STATE];

export interface AnswerTurn {
  id: string;
  role: "assistant";
  /** The model that answered (the picker may have changed since). */
  model: string;
  content: string;
  state: AnswerState;
  error?: { message: string; status: number; code: string | null };
  usage?: ChatUsage | null;
  /** At the model's prices when the answer was asked for; null without a usage frame. */
  costOt?: number | null;
  /** Time to first token; null when no text came. */
  ttftMs?: number | null;
  totalMs?: number;
  finishReason?: string | null;
}

export type Turn = UserTurn | AnswerTurn;

/** The conversation as the API gets it: system prompt, user messages and answers with text (failed ones left out). */
export function toWireMessages(system: string, turns: Turn[]): WireMessage[] {
  const out: WireMessage[] = [];
  if (system.trim()) out.push({ role: "system", content: system.trim() });
  for (const t of turns) {
    if (t.role === "user") out.push({ role: "user", content: t.content });
    else if ((t.state === ANSWER_STATE.done || t.state === ANSWER_STATE.stopped) && t.content)
      out.push({ role: "assistant", content: t.content });
  }
  return out;
}
