"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, Input, Label, Textarea } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { CopyId } from "@/components/panel/copy-id";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import {
  createCollectionRequest,
  deactivateCollectionRequest,
  fetchCollections,
  type PlainList,
  type PublicCollection,
} from "./api";
import { DocumentsPanel } from "./documents-panel";

export function KnowledgeView({
  initialCollections,
  loadedAt,
  maxUploadMb,
}: {
  initialCollections: PlainList<PublicCollection>;
  loadedAt: number;
  maxUploadMb: number;
}) {
  const query = useQuery({
    queryKey: queryKeys.knowledge.collections(),
    queryFn: fetchCollections,
    initialData: initialCollections,
    initialDataUpdatedAt: loadedAt,
  });
  const collections = query.data.data;
  const [picked, setPicked] = useState<string | null>(null);
  const selected = collections.find((c) => c.id === picked) ?? collections[0] ?? null;

  return (
    <>
      <PageHeader
        title="Knowledge"
        description="Collections of documents that runs and completions search when a profile names them in its knowledge bases. Uploads are indexed in the background."
        actions={<CreateCollectionDialog onCreated={setPicked} />}
      />
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the collections: {errorMessage(query.error)}</ErrorMessage>
      )}
      <div className="grid gap-6 lg:grid-cols-[16rem_1fr]">
        <Card className="h-fit">
          <CardHeader title="Collections" />
          {collections.length === 0 ? (
            <EmptyState title="No collections yet">
              Press <span className="font-medium text-slate-700">New collection</span>, drop documents into it, then
              name it in a profile&apos;s knowledge so runs search it.
            </EmptyState>
          ) : (
            <ul className="divide-y divide-slate-100" data-testid="collections">
              {collections.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    onClick={() => setPicked(c.id)}
                    className={cn(
                      "w-full px-5 py-3 text-left hover:bg-slate-50",
                      selected?.id === c.id && "bg-indigo-50/60",
                    )}
                    aria-current={selected?.id === c.id ? "true" : undefined}
                    data-testid="collection-item"
                    data-collection-id={c.id}
                  >
                    <div className="truncate text-sm font-medium text-slate-900">{c.name}</div>
                    <div className="text-xs text-slate-500">
                      {c.document_count} document{c.document_count === 1 ? "" : "s"}
                    </div>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </Card>
        {selected ? (
          <div className="min-w-0 space-y-6">
            <Card>
              <CardHeader
                title={selected.name}
                description={
                  <>
                    {selected.description && <span className="block">{selected.description}</span>}
                    <CopyId id={selected.id} label="collection id" className="mt-1" />
                  </>
                }
                actions={<DeactivateCollectionDialog collection={selected} />}
              />
            </Card>
            <DocumentsPanel key={selected.id} collection={selected} maxUploadMb={maxUploadMb} />
          </div>
        ) : null}
      </div>
    </>
  );
}

function CreateCollectionDialog({ onCreated }: { onCreated: (id: string) => void }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const create = useMutation({
    mutationFn: createCollectionRequest,
    onSuccess: async (c) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.knowledge.collections() });
      onCreated(c.id);
      setOpen(false);
    },
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ name: String(form.get("name") ?? "").trim(), description: String(form.get("description") ?? "") });
  }
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) create.reset();
      }}
    >
      <DialogTrigger asChild>
        <Button data-testid="create-collection">New collection</Button>
      </DialogTrigger>
      <DialogContent
        title="New collection"
        description="A named set of documents a profile can search."
        data-testid="create-collection-dialog"
      >
        <form onSubmit={onSubmit} className="space-y-4">
          <div>
            <Label htmlFor="kc-name">Name</Label>
            <Input id="kc-name" name="name" required maxLength={200} data-testid="collection-name" />
          </div>
          <div>
            <Label htmlFor="kc-description">Description</Label>
            <Textarea id="kc-description" name="description" rows={2} maxLength={4000} />
          </div>
          <ErrorMessage>{create.isError ? errorMessage(create.error) : null}</ErrorMessage>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="secondary">Cancel</Button>
            </DialogClose>
            <Button type="submit" disabled={create.isPending} data-testid="save-collection">
              {create.isPending && <Spinner />}
              Create
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function DeactivateCollectionDialog({ collection }: { collection: PublicCollection }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => deactivateCollectionRequest(collection.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.knowledge.collections() });
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
        <Button variant="danger-ghost" size="sm" data-testid="deactivate-collection">
          Delete collection
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Delete collection"
        description="It leaves the list and retrieval at once; its documents are kept for audit."
        data-testid="deactivate-collection-dialog"
      >
        <p className="text-sm text-slate-700">
          Delete <span className="font-medium text-slate-900">{collection.name}</span>?
        </p>
        <ErrorMessage className="mt-4">{remove.isError ? errorMessage(remove.error) : null}</ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button
            variant="danger"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
            data-testid="confirm-deactivate-collection"
          >
            {remove.isPending && <Spinner />}
            Delete
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
