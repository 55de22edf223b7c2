"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, FieldHint, Input, Label, Select, Textarea } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import { createProfileRequest, updateProfileRequest, type ProfileBody, type PublicProfile } from "./api";
import { IncludeWithoutKey } from "@/components/models/include-without-key";

/** A model the picker offers; `usable`: its provider has a key on this gateway (or it is offline). */
export interface ModelOption {
  id: string;
  usable: boolean;
}

/** A knowledge collection the picker offers (the company's active ones). */
export interface CollectionOption {
  id: string;
  name: string;
}

/** Create (no `profile`) or edit; `models`, `tools` and `collections` are what the company can use. */
export function ProfileDialog({
  models,
  tools,
  collections,
  profile,
}: {
  models: ModelOption[];
  tools: string[];
  collections: CollectionOption[];
  profile?: PublicProfile;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        {profile ? (
          <Button variant="ghost" size="sm" aria-label={`Edit ${profile.name}`} data-testid="edit-profile">
            Edit
          </Button>
        ) : (
          <Button data-testid="create-profile">
            <svg viewBox="0 0 20 20" fill="currentColor" className="-ml-0.5 size-4" aria-hidden="true">
              <path d="M10.75 4.75a.75.75 0 0 0-1.5 0v4.5h-4.5a.75.75 0 0 0 0 1.5h4.5v4.5a.75.75 0 0 0 1.5 0v-4.5h4.5a.75.75 0 0 0 0-1.5h-4.5v-4.5Z" />
            </svg>
            Create profile
          </Button>
        )}
      </DialogTrigger>
      {open && (
        <ProfileForm
          models={models}
          tools={tools}
          collections={collections}
          profile={profile}
          onDone={() => setOpen(false)}
        />
      )}
    </Dialog>
  );
}

function ProfileForm({
  models,
  tools,
  collections,
  profile,
  onDone,
}: {
  models: ModelOption[];
  tools: string[];
  collections: CollectionOption[];
  profile?: PublicProfile;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: ProfileBody) => (profile ? updateProfileRequest(profile.id, body) : createProfileRequest(body)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.profiles.all });
      onDone();
    },
  });
  const [allModels, setAllModels] = useState(false);
  const offered = models.filter((m) => allModels || m.usable).map((m) => m.id);
  const withoutKey = models.filter((m) => !m.usable).length;
  // A profile may name a slug hidden since (or without a key): keep it selectable so saving does not change it silently.
  const options =
    profile?.model_slug && !offered.includes(profile.model_slug) ? [profile.model_slug, ...offered] : offered;
  // Bound names whose tool was deactivated or deleted since: shown, and dropped on save (the API
  // accepts only active tools' names).
  const stale = (profile?.allowed_tool_names ?? []).filter((n) => !tools.includes(n));
  // Likewise for collections deleted since (the API accepts only active collections).
  const staleKb = (profile?.knowledge_base_ids ?? []).filter((id) => !collections.some((c) => c.id === id));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    if (!name) return setFormError("Give the profile a name.");
    setFormError(null);
    const model = String(form.get("model_slug") ?? "");
    save.mutate({
      name,
      system_prompt: String(form.get("system_prompt") ?? ""),
      model_slug: model || null,
      allowed_tool_names: form.getAll("allowed_tool_names").map(String),
      use_tools: form.get("use_tools") === "on",
      knowledge_base_ids: form.getAll("knowledge_base_ids").map(String),
      use_kb: form.get("use_kb") === "on",
    });
  }

  const title = profile ? "Edit profile" : "Create profile";
  return (
    <DialogContent title={title} className="max-w-2xl" data-testid="profile-dialog">
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div>
          <Label htmlFor="profile-name">Name</Label>
          <Input
            id="profile-name"
            name="name"
            maxLength={200}
            defaultValue={profile?.name}
            placeholder="e.g. Support agent"
            autoComplete="off"
            className="mt-1.5"
            autoFocus
          />
        </div>
        <div>
          <Label htmlFor="profile-model">Model</Label>
          <Select id="profile-model" name="model_slug" defaultValue={profile?.model_slug ?? ""} className="mt-1.5">
            <option value="">From the call (no model set)</option>
            {options.map((slug) => (
              <option key={slug} value={slug}>
                {slug}
              </option>
            ))}
          </Select>
          <FieldHint>
            Models hidden or disabled on the Models page are not offered
            {allModels ? "." : ", nor models whose provider has no key on this gateway."}
          </FieldHint>
          <IncludeWithoutKey
            count={withoutKey}
            checked={allModels}
            onChange={setAllModels}
            testId="profile-all-models"
          />
        </div>
        <fieldset data-testid="profile-tools">
          <legend className="block text-sm font-medium text-slate-700">Tools</legend>
          {tools.length === 0 ? (
            <FieldHint>No active tools yet: create one on the Tools page.</FieldHint>
          ) : (
            <div className="mt-1.5 flex flex-wrap gap-x-5 gap-y-2">
              {tools.map((name) => (
                <label key={name} className="flex items-center gap-2 text-sm text-slate-700">
                  <input
                    type="checkbox"
                    name="allowed_tool_names"
                    value={name}
                    defaultChecked={profile?.allowed_tool_names.includes(name)}
                    className="size-4 rounded border-slate-300 text-indigo-600"
                    data-testid="profile-tool"
                  />
                  <code className="font-mono">{name}</code>
                </label>
              ))}
            </div>
          )}
          {stale.length > 0 && (
            <FieldHint className="text-amber-700">
              No longer active, removed when you save: {stale.join(", ")}
            </FieldHint>
          )}
          <label className="mt-3 flex items-center gap-2 text-sm text-slate-700">
            <input
              type="checkbox"
              name="use_tools"
              defaultChecked={profile?.use_tools ?? true}
              className="size-4 rounded border-slate-300 text-indigo-600"
              data-testid="profile-use-tools"
            />
            Offer these tools to runs (a run&apos;s <code className="font-mono">use_tools</code> overrides this)
          </label>
        </fieldset>
        <fieldset data-testid="profile-knowledge">
          <legend className="block text-sm font-medium text-slate-700">Knowledge bases</legend>
          {collections.length === 0 ? (
            <FieldHint>No knowledge collections yet: create one on the Knowledge page.</FieldHint>
          ) : (
            <div className="mt-1.5 flex flex-wrap gap-x-5 gap-y-2">
              {collections.map((c) => (
                <label key={c.id} className="flex items-center gap-2 text-sm text-slate-700">
                  <input
                    type="checkbox"
                    name="knowledge_base_ids"
                    value={c.id}
                    defaultChecked={profile?.knowledge_base_ids.includes(c.id)}
                    className="size-4 rounded border-slate-300 text-indigo-600"
                    data-testid="profile-collection"
                  />
                  {c.name}
                </label>
              ))}
            </div>
          )}
          {staleKb.length > 0 && (
            <FieldHint className="text-amber-700">
              Deleted collections, removed when you save: {staleKb.join(", ")}
            </FieldHint>
          )}
          <label className="mt-3 flex items-center gap-2 text-sm text-slate-700">
            <input
              type="checkbox"
              name="use_kb"
              defaultChecked={profile?.use_kb ?? true}
              className="size-4 rounded border-slate-300 text-indigo-600"
              data-testid="profile-use-kb"
            />
            Search these collections in runs (a run&apos;s <code className="font-mono">use_kb</code> overrides this)
          </label>
        </fieldset>
        <div>
          <Label htmlFor="profile-prompt">System prompt</Label>
          <Textarea
            id="profile-prompt"
            name="system_prompt"
            rows={8}
            maxLength={100_000}
            defaultValue={profile?.system_prompt}
            className="mt-1.5"
          />
        </div>
        <ErrorMessage data-testid="profile-error">
          {formError ?? (save.isError ? errorMessage(save.error) : null)}
        </ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending && <Spinner />}
            {profile ? "Save profile" : "Create profile"}
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
