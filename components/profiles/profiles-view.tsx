"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Switch } from "@/components/ui/switch";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { EmptyState } from "@/components/ui/empty-state";
import { CopyId } from "@/components/panel/copy-id";
import { errorMessage } from "@/components/panel/fetch-json";
import { Timestamp } from "@/components/panel/timestamp";
import type { ModelList } from "@/components/models/api";
import { useModelList } from "@/components/models/use-model-list";
import { MODEL_KIND, MODEL_STATUS } from "@/db/enums";
import { queryKeys } from "@/lib/query-keys";
import { fetchCollections, type PlainList, type PublicCollection } from "@/components/knowledge/api";
import { fetchTools, type ToolPage } from "@/components/tools/api";
import { deleteProfileRequest, fetchProfiles, updateProfileRequest, type ProfilePage, type PublicProfile } from "./api";
import { ProfileDialog, type ModelOption, type CollectionOption } from "./profile-dialog";

export function ProfilesView({
  initialPage,
  initialModels,
  initialTools,
  initialCollections,
  loadedAt,
}: {
  initialPage: ProfilePage;
  initialModels: ModelList;
  initialTools: ToolPage;
  initialCollections: PlainList<PublicCollection>;
  loadedAt: number;
}) {
  const query = useQuery({
    queryKey: queryKeys.profiles.list(),
    queryFn: fetchProfiles,
    initialData: initialPage,
    initialDataUpdatedAt: loadedAt,
  });
  // The picker offers chat models the company's keys can call: active and not hidden (as the playground),
  // those whose provider has a key first (the rest on request).
  const models: ModelOption[] = useModelList(initialModels, loadedAt)
    .data.data.filter((m) => m.status === MODEL_STATUS.active && !m.hidden && m.type === MODEL_KIND.chat)
    .map((m) => ({ id: m.id, usable: m.usable }));
  // The tool picker offers the company's active tools (the API refuses any other name).
  const tools = useQuery({
    queryKey: queryKeys.tools.list(),
    queryFn: fetchTools,
    initialData: initialTools,
    initialDataUpdatedAt: loadedAt,
  })
    .data.data.filter((t) => t.is_active)
    .map((t) => t.name);
  // The knowledge picker offers the company's active collections (the API refuses any other id).
  const collections: CollectionOption[] = useQuery({
    queryKey: queryKeys.knowledge.collections(),
    queryFn: fetchCollections,
    initialData: initialCollections,
    initialDataUpdatedAt: loadedAt,
  }).data.data.map((c) => ({ id: c.id, name: c.name }));
  const profiles = query.data.data;

  return (
    <>
      <PageHeader
        title="Profiles"
        description="A profile is a system prompt, a model, the tools runs may call and the knowledge bases they search, which runs and completions can name in profile_ids. The default profile applies when a call names none."
        actions={<ProfileDialog models={models} tools={tools} collections={collections} />}
      />
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the list: {errorMessage(query.error)}</ErrorMessage>
      )}
      <Card>
        {profiles.length === 0 ? (
          <EmptyState title="No profiles yet">
            Press <span className="font-medium text-slate-700">Create profile</span> to save a system prompt, a model,
            tools and knowledge under one id. Pass that id in <code className="font-mono text-xs">profile_ids</code>, or
            make it the default; agents need a profile too.
          </EmptyState>
        ) : (
          <Table data-testid="profiles-table">
            <THead>
              <tr>
                <TH>Name</TH>
                <TH className="hidden md:table-cell">Model</TH>
                <TH>Default</TH>
                <TH className="hidden lg:table-cell">Updated</TH>
                <TH>
                  <span className="sr-only">Actions</span>
                </TH>
              </tr>
            </THead>
            <TBody>
              {profiles.map((p) => (
                <ProfileRow key={p.id} profile={p} models={models} tools={tools} collections={collections} />
              ))}
            </TBody>
          </Table>
        )}
        {query.data.has_more && (
          <div className="border-t border-slate-200 px-5 py-3 text-sm text-slate-500">
            Showing the first {profiles.length} profiles.
          </div>
        )}
      </Card>
    </>
  );
}

function ProfileRow({
  profile,
  models,
  tools,
  collections,
}: {
  profile: PublicProfile;
  models: ModelOption[];
  tools: string[];
  collections: CollectionOption[];
}) {
  const queryClient = useQueryClient();
  const setDefault = useMutation({
    mutationFn: (next: boolean) => updateProfileRequest(profile.id, { is_default: next }),
    // Setting one demotes another: refetch the whole list, pending until it lands.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.profiles.all }),
  });
  return (
    <TR data-testid="profile-row" data-profile-id={profile.id} data-profile-name={profile.name}>
      <TD className="max-w-44 sm:max-w-72">
        <div className="flex items-center gap-2">
          <span className="truncate font-medium text-slate-900" title={profile.name}>
            {profile.name}
          </span>
          {profile.is_default && (
            <Badge tone="indigo" data-testid="default-badge">
              default
            </Badge>
          )}
        </div>
        <div className="truncate text-xs text-slate-400" title={profile.system_prompt}>
          {profile.system_prompt || "No system prompt"}
        </div>
        <CopyId id={profile.id} label="profile id" className="mt-1" />
      </TD>
      <TD className="hidden md:table-cell">
        {profile.model_slug ? (
          <code
            className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700"
            data-testid="profile-model"
          >
            {profile.model_slug}
          </code>
        ) : (
          <span className="text-slate-400">From the call</span>
        )}
      </TD>
      <TD>
        <div className="flex items-center gap-2">
          <Switch
            checked={profile.is_default}
            onCheckedChange={(next) => setDefault.mutate(next)}
            disabled={setDefault.isPending}
            aria-label={`Default: ${profile.name}`}
            data-testid="profile-default"
          />
          {setDefault.isError && (
            <span role="alert" className="text-xs text-rose-600">
              {errorMessage(setDefault.error)}
            </span>
          )}
        </div>
      </TD>
      <TD className="hidden lg:table-cell">
        <Timestamp unix={profile.updated_at} style="relative" />
      </TD>
      <TD align="right">
        <div className="flex flex-col items-end gap-1 sm:flex-row sm:justify-end">
          <ProfileDialog models={models} tools={tools} collections={collections} profile={profile} />
          <DeleteProfileDialog profile={profile} />
        </div>
      </TD>
    </TR>
  );
}

function DeleteProfileDialog({ profile }: { profile: PublicProfile }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteProfileRequest(profile.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.profiles.all });
      setOpen(false);
    },
  });
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (remove.isPending) return;
        setOpen(next);
        if (!next) remove.reset();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="danger-ghost" size="sm" aria-label={`Delete ${profile.name}`} data-testid="delete-profile">
          Delete
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Delete profile"
        description="It leaves this list and can no longer be changed. Calls and agents that name its id keep resolving it."
        data-testid="delete-profile-dialog"
      >
        <p className="text-sm text-slate-700">
          Delete <span className="font-medium text-slate-900">{profile.name}</span>
          {profile.is_default ? " (the company then has no default profile)" : ""}?
        </p>
        <ErrorMessage className="mt-4">{remove.isError ? errorMessage(remove.error) : null}</ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={remove.isPending}>
              Cancel
            </Button>
          </DialogClose>
          <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            {remove.isPending && <Spinner />}
            Delete profile
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
