import { describe, expect, it } from "vitest";
import { blockedTurns, planNextTurn, resendHistory, ruleBadges, runStepsHref } from "./conversation";
import type { AppliedRule } from "./stream-run";
import { ANSWER_STATE, type AnswerTurn, type Turn } from "./types";

const pin: AppliedRule = { id: "gr_1", name: "No PINs", action: "block", stage: "input" };
const mail: AppliedRule = { id: "gr_2", name: "Mask e-mails", action: "redact", stage: "input" };

let n = 0;
const user = (content: string): Turn => ({ id: `u${n++}`, role: "user", content });
const answer = (content: string, patch: Partial<AnswerTurn> = {}): AnswerTurn => ({
  id: `a${n++}`,
  role: "assistant",
  model: "local-chat-latest",
  profile: { label: "None", profileIds: [] },
  content,
  state: ANSWER_STATE.done,
  threadId: "thread_a",
  toolCalls: [],
  appliedRules: [],
  ...patch,
});

describe("resendHistory", () => {
  it("keeps answered turns and leaves out blocked turns, refusal included", () => {
    const turns = [
      user("hello"),
      answer("hi"),
      user("my PIN is 1234"),
      answer("I can't help with that.", { appliedRules: [pin] }),
      user("my mail is a@b.c"),
      answer("noted", { appliedRules: [mail] }),
    ];
    expect(resendHistory(turns)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
      { role: "user", content: "my mail is a@b.c" },
      { role: "assistant", content: "noted" },
    ]);
  });

  it("keeps the message of a failed answer but not the failure, and a stopped answer's text", () => {
    const turns = [
      user("one"),
      answer("", { state: ANSWER_STATE.error }),
      user("two"),
      answer("partial", { state: ANSWER_STATE.stopped }),
    ];
    expect(resendHistory(turns)).toEqual([
      { role: "user", content: "one" },
      { role: "user", content: "two" },
      { role: "assistant", content: "partial" },
    ]);
  });
});

describe("planNextTurn", () => {
  it("starts a thread with the message for a new chat", () => {
    expect(planNextTurn(null, [], "hi")).toEqual({ kind: "fork", messages: [{ role: "user", content: "hi" }] });
  });

  it("goes on in the chat's thread while none of its turns was blocked", () => {
    const turns = [user("hello"), answer("hi", { appliedRules: [mail] })];
    expect(planNextTurn("thread_a", turns, "next")).toEqual({ kind: "append", threadId: "thread_a" });
  });

  it("moves to a new thread without the blocked turn once the thread holds one", () => {
    const turns = [user("hello"), answer("hi"), user("PIN 1234"), answer("refused", { appliedRules: [pin] })];
    expect(planNextTurn("thread_a", turns, "next")).toEqual({
      kind: "fork",
      messages: [
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
        { role: "user", content: "next" },
      ],
    });
    // The new thread is clean: the turn after it goes on there.
    const later = [...turns, user("next"), answer("ok", { threadId: "thread_b" })];
    expect(planNextTurn("thread_b", later, "again")).toEqual({ kind: "append", threadId: "thread_b" });
  });
});

describe("blockedTurns", () => {
  it("names the rule that blocked each blocked user message", () => {
    const blockedUser = user("PIN 1234");
    const turns = [user("hello"), answer("hi"), blockedUser, answer("refused", { appliedRules: [mail, pin] })];
    expect([...blockedTurns(turns)]).toEqual([[blockedUser.id, pin]]);
  });
});

describe("ruleBadges", () => {
  it("labels each fired rule with its action, name and stage", () => {
    const flag: AppliedRule = { id: "gr_3", name: "Competitors", action: "flag", stage: "output" };
    expect(ruleBadges([pin, mail, flag]).map((b) => [b.label, b.tone])).toEqual([
      ["Blocked by No PINs (input)", "red"],
      ["Redacted by Mask e-mails (input)", "amber"],
      ["Flagged by Competitors (output)", "neutral"],
    ]);
  });
});

it("links a run to its steps on the Threads page", () => {
  expect(runStepsHref("thread_1", "run_2")).toBe("/threads?thread=thread_1&run=run_2");
});
