"use client";

import { useMutation, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import { revokeKeyRequest, type KeyPage, type PublicKey } from "./api";

export function RevokeKeyDialog({ apiKey }: { apiKey: PublicKey }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const revoke = useMutation({
    mutationFn: () => revokeKeyRequest(apiKey.id),
    onSuccess: (revoked) => {
      // Show the new status at once; the refetch below then confirms it.
      queryClient.setQueryData<InfiniteData<KeyPage, string | null>>(
        queryKeys.keys.list(),
        (data) =>
          data && {
            ...data,
            pages: data.pages.map((p) => ({ ...p, data: p.data.map((k) => (k.id === revoked.id ? revoked : k)) })),
          },
      );
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: queryKeys.keys.all });
    },
  });

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (revoke.isPending) return;
        setOpen(next);
        if (!next) revoke.reset();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="danger-ghost" size="sm" aria-label={`Revoke ${apiKey.name}`} data-testid="revoke-key">
          Revoke
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Revoke API key"
        description="Apps using this key will be refused at once. This cannot be undone."
        data-testid="revoke-key-dialog"
      >
        <dl className="rounded-lg bg-slate-50 px-4 py-3 text-sm ring-1 ring-slate-200 ring-inset">
          <div className="flex justify-between gap-4">
            <dt className="text-slate-500">Name</dt>
            <dd className="truncate font-medium text-slate-900">{apiKey.name}</dd>
          </div>
          <div className="mt-1.5 flex justify-between gap-4">
            <dt className="text-slate-500">Key</dt>
            <dd className="font-mono text-xs leading-5 text-slate-700">{apiKey.prefix}…</dd>
          </div>
        </dl>
        <ErrorMessage className="mt-4">{revoke.isError ? errorMessage(revoke.error) : null}</ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={revoke.isPending}>
              Cancel
            </Button>
          </DialogClose>
          <Button variant="danger" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
            {revoke.isPending && <Spinner />}
            Revoke key
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
