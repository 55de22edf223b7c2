"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { ApiError, errorMessage } from "@/components/panel/fetch-json";
import { formatInt, formatOt, formatPreciseUsd } from "@/components/panel/format";
import type { ModelList, PanelModel } from "@/components/models/api";
import { useModelList } from "@/components/models/use-model-list";
import { MODEL_STATUS } from "@/db/enums";
import { MICRO_PER_OT } from "@/lib/billing/money";
import { queryKeys } from "@/lib/query-keys";
import { Composer } from "./composer";
import { answerCostOt } from "./cost";
import { SettingsCard, type PlaygroundSettings } from "./settings-card";
import { streamChat, type PlaygroundRequest } from "./stream-chat";
import { Transcript } from "./transcript";
import { ANSWER_STATE, toWireMessages, type AnswerTurn, type Turn } from "./types";

const DEFAULT_MODEL = "local-chat-latest";

/** Blank fields are left out of the request (the model's defaults); else validated as the API would. */
function readParams(s: PlaygroundSettings): {
  params: Pick<PlaygroundRequest, "temperature" | "max_completion_tokens">;
  error: string | null;
} {
  const params: Pick<PlaygroundRequest, "temperature" | "max_completion_tokens"> = {};
  if (s.temperature.trim() !== "") {
    const t = Number(s.temperature);
    if (!Number.isFinite(t) || t < 0 || t > 2) return { params, error: "Temperature goes from 0 to 2." };
    params.temperature = t;
  }
  if (s.maxTokens.trim() !== "") {
    const n = Number(s.maxTokens);
    if (!Number.isInteger(n) || n < 1) return { params, error: "Max tokens must be a whole number of at least 1." };
    params.max_completion_tokens = n;
  }
  return { params, error: null };
}

export function PlaygroundView({ initialModels, loadedAt }: { initialModels: ModelList; loadedAt: number }) {
  const queryClient = useQueryClient();
  const models = useModelList(initialModels, loadedAt).data.data.filter(
    (m) => m.status === MODEL_STATUS.active && !m.hidden,
  );
  const [pickedId, setPickedId] = useState<string | null>(null);
  // The pick, else the default; a model hidden or disabled meanwhile falls back the same way.
  const model: PanelModel | undefined =
    models.find((m) => m.id === pickedId) ??
    models.find((m) => m.id === DEFAULT_MODEL) ??
    models.find((m) => m.recommended) ??
    models[0];

  const [settings, setSettings] = useState<PlaygroundSettings>({ system: "", temperature: "", maxTokens: "" });
  const { params, error: paramsError } = readParams(settings);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const abortRef = useRef<AbortController | null>(null);
  const nextId = useRef(0);
  const streaming = turns.some((t) => t.role === "assistant" && t.state === ANSWER_STATE.streaming);

  // Leaving the page stops the answer in flight.
  useEffect(() => () => abortRef.current?.abort(), []);

  const patchAnswer = (id: string, patch: (a: AnswerTurn) => Partial<AnswerTurn>) =>
    setTurns((ts) => ts.map((t) => (t.id === id && t.role === "assistant" ? { ...t, ...patch(t) } : t)));

  async function send() {
    const text = draft.trim();
    if (!model || !text || streaming || paramsError) return;
    const asked = model;
    const user: Turn = { id: `t${nextId.current++}`, role: "user", content: text };
    const answerId = `t${nextId.current++}`;
    const history = [...turns, user];
    setTurns([
      ...history,
      { id: answerId, role: "assistant", model: asked.id, content: "", state: ANSWER_STATE.streaming },
    ]);
    setDraft("");

    const controller = new AbortController();
    abortRef.current = controller;
    const started = performance.now();
    let firstToken: number | null = null;
    const latency = () => ({
      ttftMs: firstToken === null ? null : firstToken - started,
      totalMs: performance.now() - started,
    });
    try {
      const outcome = await streamChat(
        { model: asked.id, messages: toWireMessages(settings.system, history), ...params },
        {
          signal: controller.signal,
          onDelta: (piece) => {
            firstToken ??= performance.now();
            patchAnswer(answerId, (a) => ({ content: a.content + piece }));
          },
        },
      );
      patchAnswer(answerId, () => ({
        state: ANSWER_STATE.done,
        usage: outcome.usage,
        finishReason: outcome.finishReason,
        costOt: outcome.usage ? answerCostOt(outcome.usage, asked.pricing) : null,
        ...latency(),
      }));
    } catch (err) {
      if (controller.signal.aborted) {
        patchAnswer(answerId, () => ({ state: ANSWER_STATE.stopped, ...latency() }));
      } else {
        patchAnswer(answerId, () => ({
          state: ANSWER_STATE.error,
          error:
            err instanceof ApiError
              ? { message: err.message, status: err.status, code: err.code }
              : { message: errorMessage(err), status: 0, code: null },
        }));
      }
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
      // The call was billed: the usage page must not show a cached balance.
      void queryClient.invalidateQueries({ queryKey: queryKeys.usage.all });
    }
  }

  function newChat() {
    abortRef.current?.abort();
    setTurns([]);
  }

  const answers = turns.filter((t): t is AnswerTurn => t.role === "assistant" && t.usage != null);
  const totalTokens = answers.reduce((n, a) => n + (a.usage?.total_tokens ?? 0), 0);
  // Sum in µO₮ integers: decimal O₮ floats would drift.
  const totalOt = answers.reduce((n, a) => n + Math.round((a.costOt ?? 0) * MICRO_PER_OT), 0) / MICRO_PER_OT;

  return (
    <>
      <PageHeader
        title="Playground"
        description="Chat with the models your company can use. Every answer is a real call through the gateway and is billed to your company like an API call."
        actions={
          <Button variant="secondary" onClick={newChat} disabled={turns.length === 0} data-testid="new-chat">
            New chat
          </Button>
        }
      />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <Card className="flex h-[calc(100vh-12rem)] min-h-[30rem] flex-col overflow-hidden">
          <Transcript turns={turns} modelId={model?.id ?? null} onSuggestion={setDraft} />
          <Composer
            draft={draft}
            onDraftChange={setDraft}
            onSend={() => void send()}
            onStop={() => abortRef.current?.abort()}
            streaming={streaming}
            canSend={model !== undefined && paramsError === null}
            hint={model ? `Billed at ${model.id} prices.` : "No model available."}
          />
        </Card>
        <div className="space-y-6">
          <SettingsCard
            models={models}
            model={model}
            onModelChange={setPickedId}
            settings={settings}
            onSettingsChange={setSettings}
            error={paramsError}
          />
          <Card className="px-5 py-4" data-testid="session-totals">
            <h2 className="text-sm font-semibold text-slate-900">This conversation</h2>
            <dl className="mt-3 grid grid-cols-3 gap-3 text-sm">
              <div>
                <dt className="text-xs text-slate-500">Answers</dt>
                <dd className="mt-0.5 font-medium text-slate-900 tabular-nums">{formatInt(answers.length)}</dd>
              </div>
              <div>
                <dt className="text-xs text-slate-500">Tokens</dt>
                <dd className="mt-0.5 font-medium text-slate-900 tabular-nums">{formatInt(totalTokens)}</dd>
              </div>
              <div>
                <dt className="text-xs text-slate-500">Cost</dt>
                <dd className="mt-0.5 font-medium text-slate-900 tabular-nums" title={`≈ ${formatPreciseUsd(totalOt)}`}>
                  {formatOt(totalOt)} <span className="text-xs font-normal text-slate-500">O₮</span>
                </dd>
              </div>
            </dl>
            <Link href="/usage" className="mt-3 inline-block text-xs font-medium text-indigo-600 hover:text-indigo-500">
              See the ledger on the Usage page →
            </Link>
          </Card>
        </div>
      </div>
    </>
  );
}
