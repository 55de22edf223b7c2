"use client";

import { useDeferredValue, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage, Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Switch } from "@/components/ui/switch";
import { errorMessage } from "@/components/panel/fetch-json";
import type { ModelList } from "./api";
import { groupModels, LOCAL_GROUP, type ModelGroup } from "./groups";
import { ModelsTable } from "./models-table";
import { useModelList } from "./use-model-list";

/** Rows a group shows before "Show all": the page stays about a screen tall. */
const GROUP_PAGE = 8;

/** "Show all models" lives in the URL (`?all=1`), so a reload keeps it. */
function rememberShowAll(on: boolean) {
  const url = new URL(window.location.href);
  if (on) url.searchParams.set("all", "1");
  else url.searchParams.delete("all");
  window.history.replaceState(null, "", url);
}

export function ModelsView({
  initialData,
  loadedAt,
  initialShowAll = false,
}: {
  initialData: ModelList;
  loadedAt: number;
  initialShowAll?: boolean;
}) {
  const query = useModelList(initialData, loadedAt);
  const [search, setSearch] = useState("");
  const [showAll, setShowAll] = useState(initialShowAll);
  // Typing stays fluid while 70-odd rows re-render behind it.
  const needle = useDeferredValue(search).trim().toLowerCase();

  const models = query.data.data;
  const groups = groupModels(models);
  // Usable by default: groups whose provider has a key on this gateway (and the offline group).
  const inScope = showAll ? groups : groups.filter((g) => g.configured);
  const withoutKey = groups.filter((g) => !g.configured);
  const shown = inScope
    .map((g) => ({ group: g, models: needle ? g.models.filter((m) => m.id.toLowerCase().includes(needle)) : g.models }))
    .filter((g) => g.models.length > 0);
  const scopeModels = inScope.flatMap((g) => g.models);
  const hidden = scopeModels.filter((m) => m.hidden).length;
  const operatorPriced = scopeModels.filter((m) => m.operator_priced).length;
  const toggleAll = (on: boolean) => {
    setShowAll(on);
    rememberShowAll(on);
  };

  return (
    <>
      <PageHeader
        title="Models"
        description={
          <>
            The models your keys can call, by provider group. Hide models from /v1/models or enable a disabled slug.
            Prices are per 1M tokens, in O₮ and in dollars (1 O₮ = $0.001).
            <span className="mt-1 block" data-testid="prices-note">
              Prices are set by the gateway operator and cannot be changed here; a price agreed for your company is
              marked with a dot.
            </span>
          </>
        }
      />
      <div className="mb-5 flex flex-wrap items-center justify-between gap-3">
        <div className="flex w-full flex-wrap items-center gap-4 sm:w-auto">
          <div className="relative w-full sm:w-72">
            <svg
              viewBox="0 0 20 20"
              fill="currentColor"
              className="pointer-events-none absolute inset-y-0 left-3 my-auto size-4 text-slate-400"
              aria-hidden="true"
            >
              <path
                fillRule="evenodd"
                d="M9 3.5a5.5 5.5 0 1 0 0 11 5.5 5.5 0 0 0 0-11ZM2 9a7 7 0 1 1 12.452 4.391l3.328 3.329a.75.75 0 1 1-1.06 1.06l-3.329-3.328A7 7 0 0 1 2 9Z"
                clipRule="evenodd"
              />
            </svg>
            <Input
              type="search"
              placeholder="Search models by id…"
              aria-label="Search models"
              data-testid="model-search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              className="pl-9"
            />
          </div>
          <label className="inline-flex cursor-pointer items-center gap-2 text-sm text-slate-700">
            <Switch checked={showAll} onCheckedChange={toggleAll} aria-label="Show all models" data-testid="show-all" />
            Show all models
          </label>
        </div>
        <p className="text-sm text-slate-500" data-testid="models-summary">
          {scopeModels.length} {showAll ? "models" : "usable models"} in {inScope.length}{" "}
          {inScope.length === 1 ? "group" : "groups"}
          {!showAll && withoutKey.length > 0 && (
            <> · {withoutKey.reduce((n, g) => n + g.models.length, 0)} more without a provider key</>
          )}
          {hidden > 0 && <> · {hidden} hidden</>}
          {operatorPriced > 0 && <> · {operatorPriced} at prices the operator set for you</>}
        </p>
      </div>
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the models: {errorMessage(query.error)}</ErrorMessage>
      )}
      {shown.length === 0 ? (
        <Card>
          {needle ? (
            <EmptyState
              title={`No model matches “${search.trim()}”`}
              action={
                !showAll && withoutKey.length > 0 ? (
                  <Button variant="secondary" size="sm" onClick={() => toggleAll(true)}>
                    Search all models
                  </Button>
                ) : undefined
              }
            >
              Search by model id, e.g. gpt-5, claude or local.
              {!showAll && withoutKey.length > 0 && " Only usable models are listed."}
            </EmptyState>
          ) : (
            <EmptyState title="No usable model on this gateway">
              Ask the operator to set a provider key (for example OPENAI_API_KEY) or to turn the offline local models on
              (LOCAL_MODELS=1).
            </EmptyState>
          )}
        </Card>
      ) : (
        <div className="space-y-4">
          {shown.map(({ group, models: rows }) => (
            <GroupCard
              key={group.id}
              group={group}
              rows={rows}
              searching={needle !== ""}
              // A group without a key starts folded when "Show all" lists it.
              defaultOpen={group.configured}
            />
          ))}
        </div>
      )}
    </>
  );
}

function GroupCard({
  group,
  rows,
  searching,
  defaultOpen,
}: {
  group: ModelGroup;
  rows: ModelGroup["models"];
  searching: boolean;
  defaultOpen: boolean;
}) {
  const [open, setOpen] = useState(defaultOpen);
  const [full, setFull] = useState(false);
  const total = group.models.length;
  const local = group.id === LOCAL_GROUP;
  // A search shows every group it matches in full: the matches are what was asked for.
  const expanded = open || searching;
  const visible = full || searching ? rows : rows.slice(0, GROUP_PAGE);
  const bodyId = `model-group-${group.id}`;
  return (
    <Card
      data-testid="model-group"
      data-group={group.id}
      data-open={String(expanded)}
      aria-label={`${group.label} models`}
    >
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1.5 px-5 py-3">
        <h2 className="min-w-0 text-sm font-semibold text-slate-900">
          <button
            type="button"
            className="flex items-center gap-2 text-left"
            aria-expanded={expanded}
            aria-controls={bodyId}
            onClick={() => setOpen(!expanded)}
            data-testid="group-toggle"
          >
            <svg
              viewBox="0 0 20 20"
              fill="currentColor"
              className={cn("size-4 shrink-0 text-slate-400 transition-transform", expanded && "rotate-90")}
              aria-hidden="true"
            >
              <path
                fillRule="evenodd"
                d="M8.22 5.22a.75.75 0 0 1 1.06 0l4.25 4.25a.75.75 0 0 1 0 1.06l-4.25 4.25a.75.75 0 0 1-1.06-1.06L11.94 10 8.22 6.28a.75.75 0 0 1 0-1.06Z"
                clipRule="evenodd"
              />
            </svg>
            {group.label}
            <span className="font-mono text-xs font-normal text-slate-400">{group.id}</span>
            <Badge data-testid="group-count" data-count={String(total)}>
              {rows.length === total ? `${total} ${total === 1 ? "model" : "models"}` : `${rows.length} of ${total}`}
            </Badge>
          </button>
        </h2>
        <div className="flex items-center gap-2">
          {local && (
            <Badge tone="indigo" data-testid="group-offline">
              Offline development models
            </Badge>
          )}
          <ProviderStatus group={group} />
        </div>
        <p className="w-full text-xs text-slate-500">{group.description}</p>
      </div>
      {expanded && (
        <div id={bodyId} className="border-t border-slate-200">
          <ModelsTable models={visible} />
          {visible.length < rows.length && (
            <div className="border-t border-slate-200 px-5 py-2.5">
              <Button variant="ghost" size="sm" onClick={() => setFull(true)} data-testid="group-show-more">
                Show all {rows.length} {group.label} models
              </Button>
            </div>
          )}
        </div>
      )}
    </Card>
  );
}

/** One line on whether calls to the group can work: its key is set, missing (named), or not needed. */
function ProviderStatus({ group }: { group: ModelGroup }) {
  const base = "inline-flex items-center gap-1.5 text-xs font-medium";
  if (group.id === LOCAL_GROUP || !group.keyVar) {
    return (
      <span className={cn(base, "text-slate-500")} data-testid="group-status" data-configured="true">
        No key needed
      </span>
    );
  }
  if (group.configured) {
    return (
      <span className={cn(base, "text-emerald-700")} data-testid="group-status" data-configured="true">
        <span className="size-1.5 rounded-full bg-emerald-500" aria-hidden="true" />
        Configured ({group.keyVar} set)
      </span>
    );
  }
  return (
    <span
      className={cn(base, "text-amber-700")}
      data-testid="group-status"
      data-configured="false"
      title="Calls to these models fail until the gateway operator sets this variable and restarts the gateway."
    >
      <span className="size-1.5 rounded-full bg-amber-500" aria-hidden="true" />
      Missing {group.keyVar}
    </span>
  );
}
