import type { ReactNode } from "react";
import { formatInt, formatMs, formatOt, formatPreciseUsd } from "@/components/panel/format";
import { ANSWER_STATE, type AnswerTurn } from "./types";

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline gap-1.5">
      <dt className="text-slate-400">{label}</dt>
      <dd className="text-slate-600 tabular-nums">{children}</dd>
    </div>
  );
}

/** Tokens, cost and latency under an answer. */
export function AnswerStats({ answer }: { answer: AnswerTurn }) {
  const usage = answer.usage;
  const cached = usage?.cached_tokens ?? 0;
  return (
    <dl className="mt-2.5 flex flex-wrap gap-x-5 gap-y-1 text-xs" data-testid="answer-stats">
      {usage ? (
        <Item label="Tokens">
          <span data-testid="answer-prompt-tokens">{formatInt(usage.prompt_tokens)}</span> prompt
          {cached > 0 && <span className="text-slate-400"> ({formatInt(cached)} cached)</span>}
          <span className="text-slate-400"> · </span>
          <span data-testid="answer-completion-tokens">{formatInt(usage.completion_tokens)}</span> completion
        </Item>
      ) : (
        answer.state === ANSWER_STATE.stopped && <Item label="Tokens">not reported for a stopped answer</Item>
      )}
      {answer.costOt != null && (
        <Item label="Cost">
          <span data-testid="answer-cost" data-ot={answer.costOt}>
            {formatOt(answer.costOt)}
          </span>{" "}
          O₮ <span className="text-slate-400">≈ {formatPreciseUsd(answer.costOt)}</span>
        </Item>
      )}
      {answer.ttftMs != null && (
        <Item label="First token">
          <span data-testid="answer-ttft" data-ms={Math.round(answer.ttftMs)}>
            {formatMs(answer.ttftMs)}
          </span>
        </Item>
      )}
      {answer.totalMs !== undefined && (
        <Item label="Total">
          <span data-testid="answer-total" data-ms={Math.round(answer.totalMs)}>
            {formatMs(answer.totalMs)}
          </span>
        </Item>
      )}
    </dl>
  );
}
