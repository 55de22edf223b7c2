"use client";

import { useDeferredValue, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage, Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { errorMessage } from "@/components/panel/fetch-json";
import type { ModelList } from "./api";
import { groupModels, LOCAL_GROUP, type ModelGroup } from "./groups";
import { ModelsTable } from "./models-table";
import { useModelList } from "./use-model-list";

export function ModelsView({ initialData, loadedAt }: { initialData: ModelList; loadedAt: number }) {
  const query = useModelList(initialData, loadedAt);
  const [search, setSearch] = useState("");
  // Typing stays fluid while 70-odd rows re-render behind it.
  const needle = useDeferredValue(search).trim().toLowerCase();

  const models = query.data.data;
  const groups = groupModels(models);
  const shown = groups
    .map((g) => ({ group: g, models: needle ? g.models.filter((m) => m.id.toLowerCase().includes(needle)) : g.models }))
    .filter((g) => g.models.length > 0);
  const hidden = models.filter((m) => m.hidden).length;
  const operatorPriced = models.filter((m) => m.operator_priced).length;

  return (
    <>
      <PageHeader
        title="Models"
        description={
          <>
            Every model your keys can call, by provider group. Hide models from /v1/models or enable a disabled slug.
            Prices are per 1M tokens, in O₮ and in dollars (1 O₮ = $0.001).
            <span className="mt-1 block" data-testid="prices-note">
              Prices are set by the gateway operator and cannot be changed here; a price agreed for your company is
              marked with a dot.
            </span>
          </>
        }
      />
      <div className="mb-5 flex flex-wrap items-center justify-between gap-3">
        <div className="relative w-full sm:w-80">
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
        <p className="text-sm text-slate-500" data-testid="models-summary">
          {models.length} models in {groups.length} groups
          {hidden > 0 && <> · {hidden} hidden</>}
          {operatorPriced > 0 && <> · {operatorPriced} at prices the operator set for you</>}
        </p>
      </div>
      {query.isError && (
        <ErrorMessage className="mb-4">Could not refresh the models: {errorMessage(query.error)}</ErrorMessage>
      )}
      {shown.length === 0 ? (
        <Card className="px-5 py-12 text-center text-sm text-slate-500">
          <p className="font-medium text-slate-700">No model matches “{search.trim()}”</p>
          <p className="mt-1">Search by model id, e.g. gpt-5, claude or local.</p>
        </Card>
      ) : (
        <div className="space-y-6">
          {shown.map(({ group, models: rows }) => (
            <GroupCard key={group.id} group={group} rows={rows} />
          ))}
        </div>
      )}
    </>
  );
}

function GroupCard({ group, rows }: { group: ModelGroup; rows: ModelGroup["models"] }) {
  const total = group.models.length;
  const local = group.id === LOCAL_GROUP;
  return (
    <Card data-testid="model-group" data-group={group.id} aria-label={`${group.label} models`}>
      <CardHeader
        title={
          <span className="flex items-center gap-2">
            {group.label}
            <span className="font-mono text-xs font-normal text-slate-400">{group.id}</span>
            <Badge data-testid="group-count" data-count={String(total)}>
              {rows.length === total ? `${total} ${total === 1 ? "model" : "models"}` : `${rows.length} of ${total}`}
            </Badge>
          </span>
        }
        description={group.description}
        actions={
          local ? (
            <Badge tone="indigo" data-testid="group-offline">
              Offline development models
            </Badge>
          ) : group.configured ? null : (
            <span title="Calls to this group fail until the operator sets the group's API key on the gateway.">
              <Badge tone="amber" dot data-testid="group-unconfigured">
                No API key on this gateway
              </Badge>
            </span>
          )
        }
      />
      <ModelsTable models={rows} />
    </Card>
  );
}
