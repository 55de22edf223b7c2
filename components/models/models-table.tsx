"use client";

import { Badge } from "@/components/ui/badge";
import { Spinner } from "@/components/ui/button";
import { Switch } from "@/components/ui/switch";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { cn } from "@/components/ui/cn";
import { errorMessage } from "@/components/panel/fetch-json";
import { formatCompact, formatInt, formatOt, formatUsd } from "@/components/panel/format";
import { MODEL_STATUS } from "@/db/enums";
import type { PanelModel } from "./api";
import { isCustomised, ResetModelDialog } from "./reset-model-dialog";
import { useModelMutations } from "./use-model-mutations";

export function ModelsTable({ models }: { models: PanelModel[] }) {
  return (
    // Fixed layout with set widths: every group's table lines its columns up with the others.
    <Table data-testid="models-table" className="w-full table-fixed" style={{ minWidth: "60rem" }}>
      <colgroup>
        <col />
        <col className="w-20" />
        <col className="w-40" />
        <col className="w-24" />
        <col className="w-24" />
        <col className="w-24" />
        <col className="w-20" />
        <col className="w-24" />
      </colgroup>
      <THead>
        <tr>
          <TH>Model</TH>
          <TH align="right">Context</TH>
          <TH>Capabilities</TH>
          <TH align="right">Input</TH>
          <TH align="right">Cached</TH>
          <TH align="right">Output</TH>
          <TH>Visible</TH>
          <TH>
            <span className="sr-only">Actions</span>
          </TH>
        </tr>
      </THead>
      <TBody>
        {models.map((m) => (
          <ModelRow key={m.id} model={m} />
        ))}
      </TBody>
    </Table>
  );
}

function ModelRow({ model }: { model: PanelModel }) {
  const { update } = useModelMutations(model.id);
  const disabledInCatalog = model.catalog.status === MODEL_STATUS.disabled;
  const images = model.modalities.includes("image");

  return (
    <TR
      data-testid="model-row"
      data-model-id={model.id}
      data-status={model.status}
      data-hidden={String(model.hidden)}
      className={model.hidden ? "bg-slate-50/60" : undefined}
    >
      <TD className="whitespace-normal">
        <div className="flex flex-wrap items-center gap-1.5">
          <span
            className={cn(
              "font-mono text-[13px] font-medium break-all",
              model.hidden ? "text-slate-400" : "text-slate-900",
            )}
            data-testid="model-id"
            title={model.description ?? undefined}
          >
            {model.id}
          </span>
          {model.recommended && <Badge tone="indigo">Recommended</Badge>}
          {model.status !== MODEL_STATUS.active && (
            <Badge tone={model.status === MODEL_STATUS.disabled ? "red" : "amber"} dot data-testid="model-status">
              {model.status}
            </Badge>
          )}
          {disabledInCatalog && model.status === MODEL_STATUS.active && (
            <Badge tone="green" dot data-testid="model-status">
              enabled by you
            </Badge>
          )}
          {model.hidden && <Badge data-testid="model-hidden">Hidden</Badge>}
        </div>
        {disabledInCatalog && (
          <div className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-500">
            {model.replacement && model.status === MODEL_STATUS.disabled && (
              <span data-testid="model-replacement">
                Use{" "}
                <code className="rounded bg-slate-100 px-1 py-px font-mono text-slate-700">{model.replacement}</code>{" "}
                instead.
              </span>
            )}
            <label className="inline-flex cursor-pointer items-center gap-1.5">
              <Switch
                size="sm"
                checked={model.status === MODEL_STATUS.active}
                // Off = back to the catalog's status (disabled), not a company pin that would outlive a catalog fix.
                onCheckedChange={(on) => update.mutate({ enabled: on ? true : null })}
                disabled={update.isPending}
                aria-label={`Enable ${model.id}`}
                data-testid="toggle-enabled"
              />
              Enable for your company
            </label>
          </div>
        )}
        {update.isError && (
          <p role="alert" className="mt-1 text-xs text-rose-600">
            {errorMessage(update.error)}
          </p>
        )}
      </TD>
      <TD align="right" className="text-slate-600" title={`${formatInt(model.context_window)} tokens`}>
        {formatCompact(model.context_window)}
      </TD>
      <TD>
        <div className="flex gap-1">
          {images && <Capability label="Images" icon="image" />}
          {model.supports_tools && <Capability label="Tools" icon="tools" />}
          {!images && !model.supports_tools && <span className="text-xs text-slate-400">Text only</span>}
        </div>
      </TD>
      <PriceCell
        ot={model.pricing.input}
        catalogOt={model.catalog.pricing.input}
        operator={model.operator_priced}
        testId="price-input"
      />
      <PriceCell
        ot={model.pricing.cached_input}
        catalogOt={model.catalog.pricing.cached_input}
        operator={model.operator_priced}
        testId="price-cached"
      />
      <PriceCell
        ot={model.pricing.output}
        catalogOt={model.catalog.pricing.output}
        operator={model.operator_priced}
        testId="price-output"
      />
      <TD>
        <div className="flex items-center gap-2">
          <Switch
            checked={!model.hidden}
            onCheckedChange={(visible) => update.mutate({ hidden: !visible })}
            disabled={update.isPending}
            aria-label={`Show ${model.id}`}
            data-testid="toggle-visible"
          />
          {update.isPending && <Spinner className="size-3.5 text-slate-400" />}
        </div>
      </TD>
      <TD align="right">
        <div className="flex justify-end gap-1">{isCustomised(model) && <ResetModelDialog model={model} />}</div>
      </TD>
    </TR>
  );
}

/** Read-only: prices are the operator's (CONTRACT 7). A price the operator set for this company is marked, with the catalog's in its title. */
function PriceCell({
  ot,
  catalogOt,
  operator,
  testId,
}: {
  ot: number;
  catalogOt: number;
  operator: boolean;
  testId: string;
}) {
  return (
    <TD
      align="right"
      data-testid={testId}
      data-ot={ot}
      data-source={operator ? "operator" : "catalog"}
      title={
        operator
          ? `Price set by the operator for your company; catalog ${formatOt(catalogOt)} O₮ (${formatUsd(catalogOt)})`
          : undefined
      }
    >
      <div className={operator ? "font-medium text-indigo-700" : "text-slate-900"}>
        {operator && (
          <span
            className="mr-1 inline-block size-1.5 rounded-full bg-indigo-500 align-middle"
            aria-label="operator price"
          />
        )}
        {formatOt(ot)}
      </div>
      <div className="text-xs text-slate-400">{formatUsd(ot)}</div>
    </TD>
  );
}

function Capability({ label, icon }: { label: string; icon: "image" | "tools" }) {
  return (
    <span
      className="inline-flex items-center gap-1 rounded-md bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600"
      title={label === "Images" ? "Accepts image inputs" : "Function calling"}
    >
      {icon === "image" ? (
        <svg viewBox="0 0 20 20" fill="currentColor" className="size-3 text-slate-400" aria-hidden="true">
          <path
            fillRule="evenodd"
            d="M1 5.25A2.25 2.25 0 0 1 3.25 3h13.5A2.25 2.25 0 0 1 19 5.25v9.5A2.25 2.25 0 0 1 16.75 17H3.25A2.25 2.25 0 0 1 1 14.75v-9.5Zm1.5 5.81v3.69c0 .414.336.75.75.75h13.5a.75.75 0 0 0 .75-.75v-2.69l-2.22-2.219a.75.75 0 0 0-1.06 0l-1.91 1.909.47.47a.75.75 0 1 1-1.06 1.06L6.53 8.091a.75.75 0 0 0-1.06 0l-2.97 2.97ZM12 7a1 1 0 1 1-2 0 1 1 0 0 1 2 0Z"
            clipRule="evenodd"
          />
        </svg>
      ) : (
        <svg viewBox="0 0 20 20" fill="currentColor" className="size-3 text-slate-400" aria-hidden="true">
          <path
            fillRule="evenodd"
            d="M19 5.5a4.5 4.5 0 0 1-4.791 4.49c-.873-.055-1.808.128-2.368.8l-6.024 7.23a2.724 2.724 0 1 1-3.837-3.837L9.21 8.16c.672-.56.855-1.495.8-2.368a4.5 4.5 0 0 1 5.873-4.575c.324.105.39.51.15.752L13.34 4.66a.455.455 0 0 0-.11.494 3.01 3.01 0 0 0 1.617 1.617c.17.07.363.02.493-.111l2.692-2.692c.241-.241.647-.174.752.15.14.435.216.9.216 1.382ZM4 17a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z"
            clipRule="evenodd"
          />
        </svg>
      )}
      {label}
    </span>
  );
}
