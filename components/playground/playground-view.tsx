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
import { MODEL_KIND, MODEL_STATUS } from "@/db/enums";
import { MICRO_PER_OT } from "@/lib/billing/money";
import { queryKeys } from "@/lib/query-keys";
import { Composer } from "./composer";
import { planNextTurn } from "./conversation";
import { profileChoice, type PlaygroundProfile, type ProfilePick } from "./profile-choice";
import { ProfilePicker } from "./profile-picker";
import { SettingsCard, type PlaygroundSettings } from "./settings-card";
import { addUserMessage, createChatThread, fetchRun, RunError, streamRun, type RunRequest } from "./stream-run";
import { Transcript } from "./transcript";
import { ANSWER_STATE, type AnswerTurn, type Turn } from "./types";

const DEFAULT_MODEL = "local-chat-latest";

/** Blank fields are left out of the request (the model's defaults); else validated as the API would. */
function readParams(s: PlaygroundSettings): {
  params: Pick<RunRequest, "temperature" | "max_completion_tokens">;
  error: string | null;
} {
  const params: Pick<RunRequest, "temperature" | "max_completion_tokens"> = {};
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

export function PlaygroundView({
  initialModels,
  loadedAt,
  profiles,
}: {
  initialModels: ModelList;
  loadedAt: number;
  profiles: PlaygroundProfile[];
}) {
  const queryClient = useQueryClient();
  const models = useModelList(initialModels, loadedAt).data.data.filter(
    (m) => m.status === MODEL_STATUS.active && !m.hidden && m.type === MODEL_KIND.chat,
  );
  const [pickedId, setPickedId] = useState<string | null>(null);
  // The pick, else the default; a model hidden or disabled meanwhile falls back the same way.
  const model: PanelModel | undefined =
    models.find((m) => m.id === pickedId) ??
    models.find((m) => m.id === DEFAULT_MODEL) ??
    models.find((m) => m.recommended) ??
    models[0];

  const hasDefault = profiles.some((p) => p.is_default);
  const [profilePick, setProfilePick] = useState<ProfilePick>(hasDefault ? "default" : "none");
  const profile = profileChoice(profilePick, profiles);

  const [settings, setSettings] = useState<PlaygroundSettings>({ system: "", temperature: "", maxTokens: "" });
  const { params, error: paramsError } = readParams(settings);
  const [turns, setTurns] = useState<Turn[]>([]);
  // The chat's thread; a blocked turn moves the chat to a new one (conversation.ts planNextTurn).
  const threadRef = useRef<string | null>(null);
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
    const plan = planNextTurn(threadRef.current, turns, text);
    const user: Turn = { id: `t${nextId.current++}`, role: "user", content: text };
    const answerId = `t${nextId.current++}`;
    setTurns([
      ...turns,
      user,
      {
        id: answerId,
        role: "assistant",
        model: asked.id,
        profile,
        content: "",
        state: ANSWER_STATE.streaming,
        toolCalls: [],
        appliedRules: [],
        maxTokens: params.max_completion_tokens,
      },
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
    let threadId: string | null = null;
    let runId: string | null = null;
    try {
      if (plan.kind === "append") {
        threadId = plan.threadId;
        await addUserMessage(threadId, text);
      } else {
        threadId = await createChatThread(plan.messages);
        threadRef.current = threadId;
      }
      patchAnswer(answerId, () => ({ threadId: threadId! }));
      const request: RunRequest = { model: asked.id, ...params };
      if (settings.system.trim()) request.instructions = settings.system.trim();
      if (profile.profileIds) request.profile_ids = profile.profileIds;
      const outcome = await streamRun(threadId, request, {
        signal: controller.signal,
        onDelta: (piece) => {
          firstToken ??= performance.now();
          patchAnswer(answerId, (a) => ({ content: a.content + piece }));
        },
        onToolCall: (call) => patchAnswer(answerId, (a) => ({ toolCalls: [...a.toolCalls, call] })),
        onRunId: (id) => (runId = id),
      });
      runId = outcome.runId;
      patchAnswer(answerId, () => ({ runId, usage: outcome.usage, ...latency() }));
      // The stream's frames carry no rules nor cost: the stored run has both.
      const run = runId ? await fetchRun(threadId, runId).catch(() => null) : null;
      patchAnswer(answerId, () => ({
        state: ANSWER_STATE.done,
        ...(run && {
          usage: run.usage,
          costOt: run.cost_ot,
          toolCalls: run.tool_calls,
          appliedRules: run.applied_rules,
        }),
      }));
    } catch (err) {
      if (err instanceof RunError) runId = err.runId ?? runId;
      if (controller.signal.aborted) {
        patchAnswer(answerId, () => ({ state: ANSWER_STATE.stopped, runId, ...latency() }));
      } else {
        patchAnswer(answerId, () => ({
          state: ANSWER_STATE.error,
          runId,
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
    threadRef.current = null;
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
            toolbar={<ProfilePicker profiles={profiles} value={profilePick} onChange={setProfilePick} />}
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
