"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { ErrorMessage, Label, Select, Textarea } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { GUARDRAIL_STAGE, GUARDRAIL_STAGES, type GuardrailAction, type GuardrailStage } from "@/db/enums";
import { tryGuardrailsRequest } from "./api";
import { ACTION_TONE } from "./action-tone";

export function TryGuardrails() {
  const [text, setText] = useState("");
  const [stage, setStage] = useState<GuardrailStage>(GUARDRAIL_STAGE.input);
  const trial = useMutation({ mutationFn: tryGuardrailsRequest });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trial.mutate({ stage, text });
  }

  return (
    <div className="grid gap-6 px-5 py-4 lg:grid-cols-2">
      <form onSubmit={onSubmit} className="space-y-3" data-testid="guardrail-try">
        <div>
          <Label htmlFor="try-text">Sample text</Label>
          <Textarea
            id="try-text"
            rows={5}
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={20_000}
            className="mt-1.5"
          />
        </div>
        <div className="flex items-end gap-3">
          <div className="w-40">
            <Label htmlFor="try-stage">Stage</Label>
            <Select
              id="try-stage"
              value={stage}
              onChange={(e) => setStage(e.target.value as GuardrailStage)}
              className="mt-1.5"
            >
              {GUARDRAIL_STAGES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </div>
          <Button type="submit" disabled={trial.isPending} data-testid="try-guardrails">
            {trial.isPending && <Spinner />}
            Try it
          </Button>
        </div>
        <ErrorMessage>{trial.isError ? errorMessage(trial.error) : null}</ErrorMessage>
      </form>
      <div aria-live="polite" data-testid="guardrail-try-result">
        {trial.data ? (
          <div className="space-y-3 text-sm">
            <div>
              <div className="font-medium text-slate-700">Rules that fired</div>
              {trial.data.fired.length === 0 ? (
                <p className="mt-1 text-slate-500" data-testid="no-rules-fired">
                  None: the text passes unchanged.
                </p>
              ) : (
                <ul className="mt-1.5 flex flex-wrap gap-1.5" data-testid="fired-rules">
                  {trial.data.fired.map((r) => (
                    <li key={r.id}>
                      <Badge
                        tone={ACTION_TONE[r.action as GuardrailAction]}
                        data-testid="fired-rule"
                        data-rule-name={r.name}
                      >
                        {r.name} · {r.action}
                      </Badge>
                    </li>
                  ))}
                </ul>
              )}
            </div>
            {trial.data.blocked && (
              <p
                className="rounded-md bg-rose-50 px-3 py-2 text-rose-700 ring-1 ring-rose-600/20 ring-inset"
                data-testid="try-blocked"
              >
                Blocked: the call would be refused.
              </p>
            )}
            <div>
              <div className="font-medium text-slate-700">Resulting text</div>
              <pre
                className="mt-1.5 max-h-64 overflow-auto rounded-md bg-slate-50 px-3 py-2 font-mono text-xs whitespace-pre-wrap text-slate-800 ring-1 ring-slate-200 ring-inset"
                data-testid="try-output"
              >
                {trial.data.text}
              </pre>
            </div>
          </div>
        ) : (
          <p className="text-sm text-slate-500">Enter a text and pick a stage to see which rules fire.</p>
        )}
      </div>
    </div>
  );
}
