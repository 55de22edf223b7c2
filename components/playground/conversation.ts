import type { AppliedRule } from "./stream-run";
import { ANSWER_STATE, type AnswerTurn, type Turn, type UserTurn } from "./types";
import type { WireMessage } from "./stream-run";

/** The rule that blocked a run, if any (CONTRACT 6: a block ends the run with the rule in `applied_rules`). */
export function blockingRule(rules: AppliedRule[]): AppliedRule | null {
  return rules.find((r) => r.action === "block") ?? null;
}

/** A user turn with the answer that followed it (none yet while it is being sent). */
interface Exchange {
  user: UserTurn;
  answer: AnswerTurn | null;
}

function exchanges(turns: Turn[]): Exchange[] {
  const out: Exchange[] = [];
  for (const t of turns) {
    if (t.role === "user") out.push({ user: t, answer: null });
    else if (out.length > 0) out.at(-1)!.answer = t;
  }
  return out;
}

/** The guardrail rule that blocked the turn of this user message, if it was blocked. */
export function blockedTurns(turns: Turn[]): Map<string, AppliedRule> {
  const out = new Map<string, AppliedRule>();
  for (const { user, answer } of exchanges(turns)) {
    const rule = answer && blockingRule(answer.appliedRules);
    if (rule) out.set(user.id, rule);
  }
  return out;
}

/**
 * The conversation the model should see next: each user message and its answer's text, without
 * blocked turns (neither the blocked message nor the refusal) and without failed answers.
 */
export function resendHistory(turns: Turn[]): WireMessage[] {
  const out: WireMessage[] = [];
  for (const { user, answer } of exchanges(turns)) {
    if (answer && blockingRule(answer.appliedRules)) continue;
    out.push({ role: "user", content: user.content });
    if (answer && (answer.state === ANSWER_STATE.done || answer.state === ANSWER_STATE.stopped) && answer.content)
      out.push({ role: "assistant", content: answer.content });
  }
  return out;
}

/**
 * Where the next message goes. A thread keeps every message it was given, and a run's input
 * guardrail reads the whole thread: after a blocked turn the chat moves to a new thread holding
 * the history without blocked turns; otherwise it goes on in its thread.
 */
export type NextTurn = { kind: "append"; threadId: string } | { kind: "fork"; messages: WireMessage[] };

export function planNextTurn(threadId: string | null, turns: Turn[], text: string): NextTurn {
  const current = threadId !== null ? exchanges(turns).filter((e) => e.answer?.threadId === threadId) : [];
  const tainted = current.some((e) => e.answer && blockingRule(e.answer.appliedRules));
  if (threadId !== null && !tainted) return { kind: "append", threadId };
  return { kind: "fork", messages: [...resendHistory(turns), { role: "user", content: text }] };
}

const ACTION_LABEL: Record<string, string> = { block: "Blocked", redact: "Redacted", flag: "Flagged" };
const ACTION_TONE: Record<string, "red" | "amber" | "neutral"> = { block: "red", redact: "amber", flag: "neutral" };

export interface RuleBadge {
  key: string;
  label: string;
  tone: "red" | "amber" | "neutral";
  rule: AppliedRule;
}

/** One badge per fired rule, naming it: "Blocked by <name>", with the stage it fired at. */
export function ruleBadges(rules: AppliedRule[]): RuleBadge[] {
  return rules.map((rule, i) => ({
    key: `${rule.id}-${rule.stage}-${i}`,
    label: `${ACTION_LABEL[rule.action] ?? rule.action} by ${rule.name} (${rule.stage})`,
    tone: ACTION_TONE[rule.action] ?? "neutral",
    rule,
  }));
}

/** The Threads page opened on this run's thread and steps. */
export function runStepsHref(threadId: string, runId: string): string {
  return `/threads?${new URLSearchParams({ thread: threadId, run: runId }).toString()}`;
}
