"use client";

import Link from "next/link";
import { useEffect, useRef } from "react";
import { Badge } from "@/components/ui/badge";
import { ErrorMessage } from "@/components/ui/input";
import { AnswerStats } from "./answer-stats";
import { blockedTurns, blockingRule, ruleBadges, runStepsHref } from "./conversation";
import type { AppliedRule, ToolCall } from "./stream-run";
import { ANSWER_STATE, type AnswerTurn, type Turn } from "./types";

const SUGGESTIONS = [
  "Hello! What can you do?",
  "Summarise the plot of Hamlet in two sentences.",
  "Write a haiku about API gateways.",
];

/** Distance from the bottom (px) within which the view keeps following new tokens. */
const FOLLOW_SLACK_PX = 48;

export function Transcript({
  turns,
  modelId,
  onSuggestion,
}: {
  turns: Turn[];
  modelId: string | null;
  onSuggestion: (text: string) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // Follow the stream unless the user scrolled up to read something.
  const following = useRef(true);
  const streaming = turns.some((t) => t.role === "assistant" && t.state === ANSWER_STATE.streaming);
  const blocked = blockedTurns(turns);

  useEffect(() => {
    const el = scroller.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [turns]);

  return (
    <div
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK_PX;
      }}
      className="flex-1 overflow-y-auto px-4 py-6 sm:px-6"
      role="log"
      aria-label="Conversation"
      // Screen readers announce the answer once it is complete, not every token.
      aria-busy={streaming}
      data-testid="transcript"
    >
      {turns.length === 0 ? (
        <div className="flex h-full flex-col items-center justify-center text-center">
          <span
            className="flex size-10 items-center justify-center rounded-full bg-indigo-50 text-indigo-600"
            aria-hidden="true"
          >
            <svg
              viewBox="0 0 24 24"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
              strokeLinejoin="round"
              className="size-5"
            >
              <path d="M20 12.5a7.5 7.5 0 0 1-11.2 6.5L4 20l1.1-4.3A7.5 7.5 0 1 1 20 12.5Z" />
            </svg>
          </span>
          <p className="mt-3 text-sm font-medium text-slate-900">Start a conversation</p>
          <p className="mt-1 max-w-sm text-sm text-slate-500">
            {modelId ? (
              <>
                Messages go to <code className="font-mono text-slate-700">{modelId}</code> through the gateway, with
                your company&apos;s settings.
              </>
            ) : (
              "No model is available: enable or show one on the Models page."
            )}
          </p>
          <div className="mt-5 flex flex-wrap justify-center gap-2">
            {SUGGESTIONS.map((s) => (
              <button
                key={s}
                type="button"
                onClick={() => onSuggestion(s)}
                className="rounded-full bg-white px-3 py-1.5 text-xs text-slate-600 ring-1 ring-slate-200 transition-colors ring-inset hover:bg-slate-50 hover:text-slate-900"
              >
                {s}
              </button>
            ))}
          </div>
        </div>
      ) : (
        <ol className="space-y-6">
          {turns.map((t) => (
            <li key={t.id}>
              {t.role === "user" ? (
                <UserMessage content={t.content} blockedBy={blocked.get(t.id) ?? null} />
              ) : (
                <AssistantMessage answer={t} />
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** A blocked turn stays in view, greyed, and is left out of what the next message sends. */
function UserMessage({ content, blockedBy }: { content: string; blockedBy: AppliedRule | null }) {
  return (
    <div
      className="flex flex-col items-end"
      data-testid="chat-message"
      data-role="user"
      data-excluded={blockedBy ? "true" : "false"}
    >
      <div
        className={
          blockedBy
            ? "max-w-[85%] rounded-2xl rounded-br-md bg-slate-100 px-4 py-2.5 text-sm leading-relaxed break-words whitespace-pre-wrap text-slate-400 line-through decoration-slate-300 ring-1 ring-slate-200 ring-inset"
            : "max-w-[85%] rounded-2xl rounded-br-md bg-indigo-600 px-4 py-2.5 text-sm leading-relaxed break-words whitespace-pre-wrap text-white shadow-xs"
        }
        data-testid="user-text"
      >
        {content}
      </div>
      {blockedBy && (
        <p className="mt-1 text-xs text-slate-500" data-testid="excluded-note">
          {blockedBy.stage === "input" ? "Not sent to the model" : "Left out of the conversation"}: blocked by{" "}
          <span className="font-medium text-slate-700">{blockedBy.name}</span>
        </p>
      )}
    </div>
  );
}

function RuleBadges({ rules }: { rules: AppliedRule[] }) {
  return ruleBadges(rules).map((b) => (
    <Badge
      key={b.key}
      tone={b.tone}
      data-testid="applied-rule"
      data-rule-name={b.rule.name}
      data-action={b.rule.action}
      data-stage={b.rule.stage}
    >
      {b.label}
    </Badge>
  ));
}

const asJson = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

/** A tool the run executed: name in the summary, arguments and result when opened. */
function ToolCallItem({ call }: { call: ToolCall }) {
  return (
    <details
      className="group rounded-md bg-slate-50 text-xs ring-1 ring-slate-200 ring-inset"
      data-testid="tool-call"
      data-tool-name={call.name}
    >
      <summary className="cursor-pointer px-3 py-1.5 text-slate-600 select-none hover:text-slate-900">
        Called tool <code className="font-mono font-medium text-slate-800">{call.name}</code>
      </summary>
      <dl className="space-y-2 border-t border-slate-200 px-3 py-2">
        <div>
          <dt className="text-slate-500">Arguments</dt>
          <dd>
            <pre className="mt-0.5 overflow-x-auto font-mono text-slate-800" data-testid="tool-call-args">
              {asJson(call.args)}
            </pre>
          </dd>
        </div>
        <div>
          <dt className="text-slate-500">Result</dt>
          <dd>
            <pre className="mt-0.5 overflow-x-auto font-mono text-slate-800" data-testid="tool-call-result">
              {asJson(call.result)}
            </pre>
          </dd>
        </div>
      </dl>
    </details>
  );
}

function AssistantMessage({ answer }: { answer: AnswerTurn }) {
  const streaming = answer.state === ANSWER_STATE.streaming;
  return (
    <div
      className="flex gap-3"
      data-testid="chat-message"
      data-role="assistant"
      data-state={answer.state}
      data-model={answer.model}
      data-thread-id={answer.threadId ?? ""}
      data-run-id={answer.runId ?? ""}
      data-blocked={blockingRule(answer.appliedRules) ? "true" : "false"}
    >
      <span
        className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full bg-slate-900 text-white"
        aria-hidden="true"
      >
        <svg
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
          className="size-3.5"
        >
          <path d="M12 2 3 7v10l9 5 9-5V7l-9-5Z" />
          <path d="m3 7 9 5 9-5M12 12v10" />
        </svg>
      </span>
      <div className="min-w-0 flex-1">
        <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
          <span className="font-mono font-medium text-slate-700">{answer.model}</span>
          <span className="text-slate-400" data-testid="answer-profile">
            profile: <span className="text-slate-600">{answer.profile.label}</span>
          </span>
          {streaming && <span className="text-slate-400">generating…</span>}
          {answer.state === ANSWER_STATE.stopped && <Badge tone="amber">Stopped</Badge>}
          {answer.maxTokens !== undefined && (answer.usage?.completion_tokens ?? 0) >= answer.maxTokens && (
            <Badge tone="amber">Cut at max tokens</Badge>
          )}
          <RuleBadges rules={answer.appliedRules} />
        </div>
        {answer.toolCalls.length > 0 && (
          <div className="mb-2 space-y-1.5">
            {answer.toolCalls.map((call, i) => (
              <ToolCallItem key={i} call={call} />
            ))}
          </div>
        )}
        {answer.state === ANSWER_STATE.error && answer.error ? (
          <ErrorMessage data-testid="answer-error">
            <p>{answer.error.message}</p>
            <p className="mt-1 font-mono text-xs text-rose-600/80">
              {answer.error.status >= 400 && `HTTP ${answer.error.status}`}
              {answer.error.status >= 400 && answer.error.code && " · "}
              {answer.error.code}
            </p>
            {answer.error.code === "insufficient_balance" && (
              <Link
                href="/usage"
                className="mt-1.5 inline-block text-xs font-medium text-rose-700 underline underline-offset-2"
              >
                Check your balance
              </Link>
            )}
          </ErrorMessage>
        ) : streaming && !answer.content ? (
          <div className="flex h-6 items-center gap-1" aria-label="Waiting for the first token">
            {[0, 150, 300].map((delay) => (
              <span
                key={delay}
                className="size-1.5 animate-bounce rounded-full bg-slate-400"
                style={{ animationDelay: `${delay}ms` }}
              />
            ))}
          </div>
        ) : (
          <div
            className="text-sm leading-relaxed break-words whitespace-pre-wrap text-slate-800"
            data-testid="answer-text"
          >
            {answer.content}
            {streaming && (
              <span
                className="ml-0.5 inline-block h-4 w-1.5 translate-y-0.5 animate-pulse rounded-xs bg-indigo-500"
                aria-hidden="true"
              />
            )}
          </div>
        )}
        {(answer.state === ANSWER_STATE.done || answer.state === ANSWER_STATE.stopped) && (
          <AnswerStats answer={answer} />
        )}
        {answer.threadId && answer.runId && !streaming && (
          <Link
            href={runStepsHref(answer.threadId, answer.runId)}
            className="mt-1.5 inline-block text-xs font-medium text-indigo-600 hover:text-indigo-500"
            data-testid="run-steps-link"
          >
            See the run&apos;s steps →
          </Link>
        )}
      </div>
    </div>
  );
}
