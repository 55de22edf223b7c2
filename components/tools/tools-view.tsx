"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
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
import { queryKeys } from "@/lib/query-keys";
import { deleteToolRequest, fetchTools, updateToolRequest, type PublicTool, type ToolPage } from "./api";
import { ToolDialog } from "./tool-dialog";

export function ToolsView({ initialPage, loadedAt }: { initialPage: ToolPage; loadedAt: number }) {
  const query = useQuery({
    queryKey: queryKeys.tools.list(),
    queryFn: fetchTools,
    initialData: initialPage,
    initialDataUpdatedAt: loadedAt,
  });
  const tools = query.data.data;

  return (
    <>
      <PageHeader
        title="Tools"
        description="Python functions the model can call during a run. A profile lists the tools it offers; each call runs in an isolated sandbox with only the Python standard library."
        actions={<ToolDialog />}
      />
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the list: {errorMessage(query.error)}</ErrorMessage>
      )}
      <Card>
        {tools.length === 0 ? (
          <EmptyState title="No tools yet">
            Press <span className="font-medium text-slate-700">Create tool</span> to write a Python function and try it
            here; then tick it in a profile so that profile&apos;s runs can call it.
          </EmptyState>
        ) : (
          <Table data-testid="tools-table">
            <THead>
              <tr>
                <TH>Name</TH>
                <TH className="hidden md:table-cell">Arguments</TH>
                <TH>Active</TH>
                <TH className="hidden lg:table-cell">Updated</TH>
                <TH>
                  <span className="sr-only">Actions</span>
                </TH>
              </tr>
            </THead>
            <TBody>
              {tools.map((t) => (
                <ToolRow key={t.id} tool={t} />
              ))}
            </TBody>
          </Table>
        )}
        {query.data.has_more && (
          <div className="border-t border-slate-200 px-5 py-3 text-sm text-slate-500">
            Showing the first {tools.length} tools.
          </div>
        )}
      </Card>
    </>
  );
}

function argumentNames(tool: PublicTool): string {
  const props = tool.json_schema.properties;
  const names = props && typeof props === "object" ? Object.keys(props) : [];
  return names.length ? names.join(", ") : "none";
}

function ToolRow({ tool }: { tool: PublicTool }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (next: boolean) => updateToolRequest(tool.id, { is_active: next }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tools.all }),
  });
  return (
    <TR
      data-testid="tool-row"
      data-tool-id={tool.id}
      data-tool-name={tool.name}
      className={tool.is_active ? undefined : "text-slate-500"}
    >
      <TD className="max-w-44 sm:max-w-80">
        <code className="font-mono text-sm font-medium break-all whitespace-normal text-slate-900">{tool.name}</code>
        <div className="truncate text-xs text-slate-400" title={tool.description}>
          {tool.description || "No description"}
        </div>
        <CopyId id={tool.id} label="tool id" className="mt-1" />
      </TD>
      <TD className="hidden max-w-56 truncate font-mono text-xs md:table-cell">{argumentNames(tool)}</TD>
      <TD>
        <div className="flex items-center gap-2">
          <Switch
            checked={tool.is_active}
            onCheckedChange={(next) => toggle.mutate(next)}
            disabled={toggle.isPending}
            aria-label={`Active: ${tool.name}`}
            data-testid="tool-active"
          />
          {toggle.isError && (
            <span role="alert" className="text-xs text-rose-600">
              {errorMessage(toggle.error)}
            </span>
          )}
        </div>
      </TD>
      <TD className="hidden lg:table-cell">
        <Timestamp unix={tool.updated_at} style="relative" />
      </TD>
      <TD align="right">
        <div className="flex flex-col items-end gap-1 sm:flex-row sm:justify-end">
          <ToolDialog tool={tool} />
          <DeleteToolDialog tool={tool} />
        </div>
      </TD>
    </TR>
  );
}

function DeleteToolDialog({ tool }: { tool: PublicTool }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteToolRequest(tool.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.tools.all });
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
        <Button variant="danger-ghost" size="sm" aria-label={`Delete ${tool.name}`} data-testid="delete-tool">
          Delete
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Delete tool"
        description="Runs stop calling it and its name is free for a new tool. Past runs keep their record of its calls. To keep it, switch it off instead."
        data-testid="delete-tool-dialog"
      >
        <p className="text-sm text-slate-700">
          Delete <code className="font-mono font-medium text-slate-900">{tool.name}</code>?
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
            Delete tool
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
