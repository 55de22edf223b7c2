"use client";

import { useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import type { PanelModel } from "./api";
import { useModelMutations } from "./use-model-mutations";

/** What the company changed on this slug, in words, for the confirmation (never a price: those are the operator's). */
function changes(model: PanelModel): string[] {
  const out: string[] = [];
  if (model.hidden) out.push("Hidden from /v1/models: it will be listed again");
  if (model.status !== model.catalog.status) out.push(`Status ${model.status}: back to ${model.catalog.status}`);
  return out;
}

/** Whether the company's override changes anything (showing a model again leaves an override that holds catalog values). */
export function isCustomised(model: PanelModel): boolean {
  return model.overridden && changes(model).length > 0;
}

export function ResetModelDialog({ model }: { model: PanelModel }) {
  const [open, setOpen] = useState(false);
  const { reset } = useModelMutations(model.id);
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (reset.isPending) return;
        setOpen(next);
        if (!next) reset.reset();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm" aria-label={`Reset ${model.id} to catalog`} data-testid="reset-model">
          Reset
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Reset to catalog"
        description={`Drop every change your company made to ${model.id}.`}
        data-testid="reset-model-dialog"
      >
        <ul className="space-y-1.5 rounded-lg bg-slate-50 px-4 py-3 text-sm text-slate-700 ring-1 ring-slate-200 ring-inset">
          {changes(model).map((c) => (
            <li key={c} className="flex gap-2">
              <span className="mt-2 size-1 shrink-0 rounded-full bg-slate-400" aria-hidden="true" />
              {c}
            </li>
          ))}
        </ul>
        <ErrorMessage className="mt-4">{reset.isError ? errorMessage(reset.error) : null}</ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={reset.isPending}>
              Cancel
            </Button>
          </DialogClose>
          <Button
            onClick={() => reset.mutate(undefined, { onSuccess: () => setOpen(false) })}
            disabled={reset.isPending}
          >
            {reset.isPending && <Spinner />}
            Reset to catalog
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
