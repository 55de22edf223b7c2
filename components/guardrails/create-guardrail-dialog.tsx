"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, FieldHint, Input, Label, Select } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import {
  GUARDRAIL_ACTION,
  GUARDRAIL_ACTIONS,
  GUARDRAIL_MATCH_TYPE,
  GUARDRAIL_MATCH_TYPES,
  GUARDRAIL_STAGE,
  GUARDRAIL_STAGES,
  type GuardrailAction,
  type GuardrailMatchType,
  type GuardrailStage,
} from "@/db/enums";
import { queryKeys } from "@/lib/query-keys";
import { createGuardrailRequest, type CreateGuardrailBody } from "./api";

export function CreateGuardrailDialog() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button data-testid="create-guardrail">
          <svg viewBox="0 0 20 20" fill="currentColor" className="-ml-0.5 size-4" aria-hidden="true">
            <path d="M10.75 4.75a.75.75 0 0 0-1.5 0v4.5h-4.5a.75.75 0 0 0 0 1.5h4.5v4.5a.75.75 0 0 0 1.5 0v-4.5h4.5a.75.75 0 0 0 0-1.5h-4.5v-4.5Z" />
          </svg>
          Create rule
        </Button>
      </DialogTrigger>
      {open && <CreateGuardrailForm onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function CreateGuardrailForm({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: CreateGuardrailBody) => createGuardrailRequest(body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.guardrails.all });
      onDone();
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const pattern = String(form.get("pattern") ?? "");
    if (!name) return setFormError("Give the rule a name.");
    if (!pattern) return setFormError("Enter a keyword or a pattern.");
    setFormError(null);
    create.mutate({
      name,
      stage: form.get("stage") as GuardrailStage,
      match: { type: form.get("match_type") as GuardrailMatchType, pattern },
      action: form.get("action") as GuardrailAction,
    });
  }

  return (
    <DialogContent
      title="Create guardrail rule"
      description="It applies to every run and chat completion of your company from now on."
      data-testid="create-guardrail-dialog"
    >
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <Label htmlFor="guardrail-name">Name</Label>
          <Input
            id="guardrail-name"
            name="name"
            maxLength={100}
            placeholder="e.g. No card numbers"
            autoComplete="off"
            className="mt-1.5"
            autoFocus
          />
        </div>
        <div className="grid gap-4 sm:grid-cols-3">
          <div>
            <Label htmlFor="guardrail-stage">Stage</Label>
            <Select id="guardrail-stage" name="stage" defaultValue={GUARDRAIL_STAGE.input} className="mt-1.5">
              {GUARDRAIL_STAGES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="guardrail-match-type">Match</Label>
            <Select
              id="guardrail-match-type"
              name="match_type"
              defaultValue={GUARDRAIL_MATCH_TYPE.keyword}
              className="mt-1.5"
            >
              {GUARDRAIL_MATCH_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="guardrail-action">Action</Label>
            <Select id="guardrail-action" name="action" defaultValue={GUARDRAIL_ACTION.flag} className="mt-1.5">
              {GUARDRAIL_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </Select>
          </div>
        </div>
        <div>
          <Label htmlFor="guardrail-pattern">Pattern</Label>
          <Input
            id="guardrail-pattern"
            name="pattern"
            maxLength={500}
            autoComplete="off"
            spellCheck={false}
            className="mt-1.5 font-mono"
          />
          <FieldHint>
            A keyword matches as a whole word, case-insensitively; a regex uses RE2 syntax (no backreferences or
            lookaround).
          </FieldHint>
        </div>
        <ErrorMessage data-testid="create-guardrail-error">
          {formError ?? (create.isError ? errorMessage(create.error) : null)}
        </ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending && <Spinner />}
            Create rule
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
