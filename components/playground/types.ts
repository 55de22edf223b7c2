import type { AppliedRule, RunUsage, ToolCall } from "./stream-run";

export const ANSWER_STATE = { streaming: "streaming", done: "done", stopped: "stopped", error: "error" } as const;
type AnswerState = (typeof ANSWER_STATE)[keyof typeof ANSWER_STATE];

export interface UserTurn {
  id: string;
  role: "user";
  content: string;
}

/** The profile choice an answer was asked with, as the picker showed it. */
export interface ProfileChoice {
  /** Absent: the company's default profile; `[]`: none. */
  profileIds?: string[];
  label: string;
}

export interface AnswerTurn {
  id: string;
  role: "assistant";
  /** The model that answered (the picker may have changed since). */
  model: string;
  profile: ProfileChoice;
  content: string;
  state: AnswerState;
  threadId?: string;
  runId?: string | null;
  toolCalls: ToolCall[];
  appliedRules: AppliedRule[];
  error?: { message: string; status: number; code: string | null };
  usage?: RunUsage | null;
  /** What the run was billed (its ledger row); null before the run is read back. */
  costOt?: number | null;
  /** The max tokens asked for, to tell an answer cut at that cap. */
  maxTokens?: number;
  /** Time to first token; null when no text came. */
  ttftMs?: number | null;
  totalMs?: number;
}

export type Turn = UserTurn | AnswerTurn;
