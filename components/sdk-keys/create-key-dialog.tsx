"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, FieldHint, Input, Label } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { SCOPE, SCOPES, type Scope } from "@/db/enums";
import { queryKeys } from "@/lib/query-keys";
import { createKeyRequest, type CreatedKey, type CreateKeyBody } from "./api";

const SCOPE_HELP: Record<Scope, string> = {
  [SCOPE.chat]: "Chat completions, threads, runs and usage reporting",
  [SCOPE.view]: "Read SDK views (embedded widget)",
  [SCOPE.action]: "Execute SDK actions",
  [SCOPE.admin]: "Manage this company's keys through the API",
};

const DEFAULT_RATE_LIMIT = 60;

/** `YYYY-MM-DD` of today in the browser's time zone, the earliest expiry the date input offers. */
function localToday(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** A date input's value → the end of that day in the user's time zone, as ISO (the API wants an offset). */
function endOfLocalDay(date: string): string {
  return new Date(`${date}T23:59:59`).toISOString();
}

export function CreateKeyDialog() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button data-testid="create-key">
          <svg viewBox="0 0 20 20" fill="currentColor" className="-ml-0.5 size-4" aria-hidden="true">
            <path d="M10.75 4.75a.75.75 0 0 0-1.5 0v4.5h-4.5a.75.75 0 0 0 0 1.5h4.5v4.5a.75.75 0 0 0 1.5 0v-4.5h4.5a.75.75 0 0 0 0-1.5h-4.5v-4.5Z" />
          </svg>
          Create key
        </Button>
      </DialogTrigger>
      {/* Mounted only while open, so the secret is dropped from memory when the dialog closes. */}
      {open && <CreateKeyFlow onClose={() => setOpen(false)} />}
    </Dialog>
  );
}

function CreateKeyFlow({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (body: CreateKeyBody) => createKeyRequest(body),
    // The result holds the secret: drop it from the mutation cache as soon as the dialog closes.
    gcTime: 0,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.keys.all }),
  });

  if (create.data) return <SecretStep created={create.data} onClose={onClose} />;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    const scopes = SCOPES.filter((s) => form.getAll("scopes").includes(s));
    const rateLimit = Number(form.get("rate_limit_per_minute"));
    const expires = String(form.get("expires_on") ?? "");
    if (!name) return setFormError("Give the key a name.");
    if (scopes.length === 0) return setFormError("Choose at least one scope.");
    if (!Number.isInteger(rateLimit) || rateLimit < 1)
      return setFormError("The rate limit must be a whole number of at least 1.");
    setFormError(null);
    create.mutate({
      name,
      scopes,
      rate_limit_per_minute: rateLimit,
      ...(expires ? { expires_at: endOfLocalDay(expires) } : {}),
    });
  }

  return (
    <DialogContent
      title="Create API key"
      description="The secret is shown once, right after creation."
      data-testid="create-key-dialog"
    >
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <Label htmlFor="key-name">Name</Label>
          <Input
            id="key-name"
            name="name"
            maxLength={100}
            placeholder="e.g. Production backend"
            autoComplete="off"
            className="mt-1.5"
            autoFocus
          />
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">Scopes</legend>
          <div className="mt-2 divide-y divide-slate-100 rounded-lg ring-1 ring-slate-200 ring-inset">
            {SCOPES.map((scope) => (
              <div key={scope} className="flex items-start gap-3 px-3 py-2.5">
                <input
                  id={`scope-${scope}`}
                  type="checkbox"
                  name="scopes"
                  value={scope}
                  defaultChecked={scope === SCOPE.chat}
                  aria-describedby={`scope-${scope}-help`}
                  className="mt-0.5 size-4 cursor-pointer rounded border-slate-300 accent-indigo-600"
                />
                <div className="text-sm">
                  <label htmlFor={`scope-${scope}`} className="cursor-pointer font-mono font-medium text-slate-900">
                    {scope}
                  </label>
                  <p id={`scope-${scope}-help`} className="text-slate-500">
                    {SCOPE_HELP[scope]}
                  </p>
                </div>
              </div>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <div>
            <Label htmlFor="key-rpm">Rate limit</Label>
            <div className="relative mt-1.5">
              <Input
                id="key-rpm"
                name="rate_limit_per_minute"
                type="number"
                min={1}
                max={100_000}
                step={1}
                defaultValue={DEFAULT_RATE_LIMIT}
                className="pr-20"
              />
              <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-xs text-slate-400">
                req / min
              </span>
            </div>
          </div>
          <div>
            <Label htmlFor="key-expires">
              Expires on <span className="font-normal text-slate-400">(optional)</span>
            </Label>
            <Input id="key-expires" name="expires_on" type="date" min={localToday()} className="mt-1.5" />
            <FieldHint>Stops working at the end of that day.</FieldHint>
          </div>
        </div>
        <ErrorMessage data-testid="create-key-error">
          {formError ?? (create.isError ? errorMessage(create.error) : null)}
        </ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={create.isPending}>
            {create.isPending && <Spinner />}
            Create key
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}

function SecretStep({ created, onClose }: { created: CreatedKey; onClose: () => void }) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");

  async function copySecret() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopy("copied");
    } catch {
      // Clipboard API refused (insecure context, permissions): the user can still select the text.
      setCopy("failed");
    }
  }

  return (
    <DialogContent
      title="Save your API key"
      description={`“${created.name}” is ready to use.`}
      // A stray click must not throw away a secret that cannot be shown again.
      dismissible={false}
      data-testid="key-secret-dialog"
    >
      <div
        className="flex gap-3 rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900 ring-1 ring-amber-600/20 ring-inset"
        role="note"
      >
        <svg
          viewBox="0 0 20 20"
          fill="currentColor"
          className="mt-0.5 size-4 shrink-0 text-amber-500"
          aria-hidden="true"
        >
          <path
            fillRule="evenodd"
            d="M8.485 2.495c.673-1.167 2.357-1.167 3.03 0l6.28 10.875c.673 1.167-.17 2.625-1.516 2.625H3.72c-1.347 0-2.189-1.458-1.515-2.625L8.485 2.495ZM10 5a.75.75 0 0 1 .75.75v3.5a.75.75 0 0 1-1.5 0v-3.5A.75.75 0 0 1 10 5Zm0 9a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
            clipRule="evenodd"
          />
        </svg>
        <p>
          Copy this secret now. <strong className="font-semibold">It will not be shown again</strong>: we only keep a
          hash. If you lose it, revoke the key and create a new one.
        </p>
      </div>
      <Label htmlFor="new-key-secret" className="mt-5">
        Secret key
      </Label>
      <div className="mt-1.5 flex gap-2">
        <Input
          id="new-key-secret"
          data-testid="new-key-secret"
          readOnly
          value={created.key}
          onFocus={(e) => e.currentTarget.select()}
          className="font-mono text-xs"
          spellCheck={false}
        />
        <Button variant="secondary" onClick={copySecret} data-testid="copy-secret">
          {copy === "copied" ? "Copied" : "Copy"}
        </Button>
      </div>
      <p className="mt-1.5 h-4 text-xs text-slate-500" aria-live="polite">
        {copy === "copied"
          ? "Copied to the clipboard."
          : copy === "failed"
            ? "Copy was blocked by the browser: select the key and copy it by hand."
            : ""}
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
        <span>Scopes</span>
        {created.scopes.map((s) => (
          <Badge key={s} tone="indigo">
            {s}
          </Badge>
        ))}
        <span className="ml-2">{created.rate_limit_per_minute} req / min</span>
      </div>
      <DialogFooter>
        <Button onClick={onClose}>Done</Button>
      </DialogFooter>
    </DialogContent>
  );
}
