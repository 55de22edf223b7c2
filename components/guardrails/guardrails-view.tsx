"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Switch } from "@/components/ui/switch";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { EmptyState } from "@/components/ui/empty-state";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import {
  deleteGuardrailRequest,
  fetchGuardrails,
  setGuardrailActiveRequest,
  type GuardrailPage,
  type PublicGuardrail,
} from "./api";
import { ACTION_TONE } from "./action-tone";
import { CreateGuardrailDialog } from "./create-guardrail-dialog";
import { TryGuardrails } from "./try-guardrails";

export function GuardrailsView({ initialPage, loadedAt }: { initialPage: GuardrailPage; loadedAt: number }) {
  const query = useQuery({
    queryKey: queryKeys.guardrails.list(),
    queryFn: fetchGuardrails,
    initialData: initialPage,
    initialDataUpdatedAt: loadedAt,
  });
  const rules = query.data.data;

  return (
    <>
      <PageHeader
        title="Guardrails"
        description="Rules checked on every run and chat completion: on the prompt (input) or the answer (output). Block refuses, redact replaces the match with [REDACTED], flag only records. Rules apply in creation order."
        actions={<CreateGuardrailDialog />}
      />
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the list: {errorMessage(query.error)}</ErrorMessage>
      )}
      <Card>
        {rules.length === 0 ? (
          <EmptyState title="No guardrail rules yet">
            Press <span className="font-medium text-slate-700">Create rule</span> to block, redact or flag text on the
            prompt or the answer of every call, then check it with Try it below.
          </EmptyState>
        ) : (
          <Table data-testid="guardrails-table">
            <THead>
              <tr>
                <TH>Name</TH>
                <TH className="hidden md:table-cell">Stage</TH>
                <TH className="hidden md:table-cell">Match</TH>
                <TH className="hidden lg:table-cell">Pattern</TH>
                <TH className="hidden sm:table-cell">Action</TH>
                <TH>Active</TH>
                <TH>
                  <span className="sr-only">Actions</span>
                </TH>
              </tr>
            </THead>
            <TBody>
              {rules.map((rule) => (
                <RuleRow key={rule.id} rule={rule} />
              ))}
            </TBody>
          </Table>
        )}
        {query.data.has_more && (
          <div className="border-t border-slate-200 px-5 py-3 text-sm text-slate-500">
            Showing the first {rules.length} rules.
          </div>
        )}
      </Card>
      <Card className="mt-6">
        <CardHeader
          title="Try it"
          description="Runs a sample text through the active rules of one stage. No model is called and nothing is billed."
        />
        <TryGuardrails />
      </Card>
    </>
  );
}

function RuleRow({ rule }: { rule: PublicGuardrail }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (next: boolean) => setGuardrailActiveRequest(rule.id, next),
    // Pending until the refetch lands, so the switch never flips back and forth.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.guardrails.all }),
  });
  return (
    <TR
      data-testid="guardrail-row"
      data-rule-id={rule.id}
      data-rule-name={rule.name}
      className={rule.is_active ? undefined : "text-slate-500"}
    >
      <TD className="max-w-40 sm:max-w-56">
        <div className="truncate font-medium text-slate-900" title={rule.name}>
          {rule.name}
        </div>
        <div className="truncate text-xs text-slate-500 lg:hidden" title={rule.match.pattern}>
          <span className="sm:hidden">{rule.action} · </span>
          <span className="md:hidden">
            {rule.stage} · {rule.match.type}:{" "}
          </span>
          <code className="font-mono">{rule.match.pattern}</code>
        </div>
      </TD>
      <TD className="hidden md:table-cell">
        <Badge>{rule.stage}</Badge>
      </TD>
      <TD className="hidden md:table-cell">{rule.match.type}</TD>
      <TD className="hidden max-w-72 lg:table-cell">
        <code
          className="block truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700"
          title={rule.match.pattern}
        >
          {rule.match.pattern}
        </code>
      </TD>
      <TD className="hidden sm:table-cell">
        <Badge tone={ACTION_TONE[rule.action]} data-testid="guardrail-action">
          {rule.action}
        </Badge>
      </TD>
      <TD>
        <div className="flex items-center gap-2">
          <Switch
            checked={rule.is_active}
            onCheckedChange={(next) => toggle.mutate(next)}
            disabled={toggle.isPending}
            aria-label={`Active: ${rule.name}`}
            data-testid="guardrail-active"
          />
          {toggle.isError && (
            <span role="alert" className="text-xs text-rose-600">
              {errorMessage(toggle.error)}
            </span>
          )}
        </div>
      </TD>
      <TD align="right">
        <DeleteGuardrailDialog rule={rule} />
      </TD>
    </TR>
  );
}

function DeleteGuardrailDialog({ rule }: { rule: PublicGuardrail }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteGuardrailRequest(rule.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.guardrails.all });
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
        <Button variant="danger-ghost" size="sm" aria-label={`Delete ${rule.name}`} data-testid="delete-guardrail">
          Delete
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Delete guardrail rule"
        description="The rule stops applying at once. To keep it, switch it off instead."
        data-testid="delete-guardrail-dialog"
      >
        <p className="text-sm text-slate-700">
          Delete <span className="font-medium text-slate-900">{rule.name}</span>?
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
            Delete rule
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
