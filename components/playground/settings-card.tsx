"use client";

import { useState } from "react";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage, FieldHint, Input, Label, Select, Textarea } from "@/components/ui/input";
import { formatCompact, formatOt } from "@/components/panel/format";
import type { PanelModel } from "@/components/models/api";
import { groupModels, type ModelGroup } from "@/components/models/groups";
import { IncludeWithoutKey } from "@/components/models/include-without-key";

/** Groups that can answer now (a configured provider, or the offline models) come first. */
function usableFirst(groups: ModelGroup[]): ModelGroup[] {
  return [...groups.filter((g) => g.configured), ...groups.filter((g) => !g.configured)];
}

/** Usable models, or all of them; the picked one stays listed so the select never hides it. */
function offeredModels(models: PanelModel[], all: boolean, picked: PanelModel | undefined): PanelModel[] {
  return models.filter((m) => all || m.usable || m.id === picked?.id);
}

function groupLabel(g: ModelGroup): string {
  if (g.id === "local") return `${g.label} (offline, development)`;
  return g.configured ? g.label : `${g.label} (no API key: calls fail)`;
}

export interface PlaygroundSettings {
  system: string;
  /** As typed; blank = the model's default. */
  temperature: string;
  /** As typed; blank = no limit. */
  maxTokens: string;
}

export function SettingsCard({
  models,
  model,
  onModelChange,
  settings,
  onSettingsChange,
  error,
}: {
  models: PanelModel[];
  model: PanelModel | undefined;
  onModelChange: (id: string) => void;
  settings: PlaygroundSettings;
  onSettingsChange: (next: PlaygroundSettings) => void;
  error: string | null;
}) {
  const set = (patch: Partial<PlaygroundSettings>) => onSettingsChange({ ...settings, ...patch });
  const [allModels, setAllModels] = useState(false);
  const offered = offeredModels(models, allModels, model);
  const withoutKey = models.filter((m) => !m.usable).length;
  return (
    <Card>
      <CardHeader title="Settings" description="Apply to the next message." />
      <div className="space-y-5 px-5 py-4">
        <div>
          <Label htmlFor="pg-model">Model</Label>
          <Select
            id="pg-model"
            data-testid="model-picker"
            value={model?.id ?? ""}
            onChange={(e) => onModelChange(e.target.value)}
            disabled={models.length === 0}
            className="mt-1.5 font-mono text-[13px]"
          >
            {models.length === 0 && <option value="">No model available</option>}
            {usableFirst(groupModels(offered)).map((g) => (
              <optgroup key={g.id} label={groupLabel(g)}>
                {g.models.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.id}
                  </option>
                ))}
              </optgroup>
            ))}
          </Select>
          <IncludeWithoutKey
            count={withoutKey}
            checked={allModels}
            onChange={setAllModels}
            testId="playground-all-models"
          />
          {model && <ModelFacts model={model} />}
        </div>
        <div>
          <Label htmlFor="pg-system">
            System prompt <span className="font-normal text-slate-400">(optional)</span>
          </Label>
          <Textarea
            id="pg-system"
            rows={4}
            value={settings.system}
            onChange={(e) => set({ system: e.target.value })}
            placeholder="You are a helpful assistant…"
            className="mt-1.5"
          />
          <FieldHint>Sent with every run as its instructions, after the profile's system prompt.</FieldHint>
        </div>
        <div className="grid grid-cols-2 gap-3">
          <div>
            <Label htmlFor="pg-temperature">Temperature</Label>
            <Input
              id="pg-temperature"
              type="number"
              inputMode="decimal"
              min={0}
              max={2}
              step={0.1}
              value={settings.temperature}
              onChange={(e) => set({ temperature: e.target.value })}
              placeholder="Default"
              className="mt-1.5 tabular-nums"
            />
          </div>
          <div>
            <Label htmlFor="pg-max-tokens">Max tokens</Label>
            <Input
              id="pg-max-tokens"
              type="number"
              inputMode="numeric"
              min={1}
              step={1}
              value={settings.maxTokens}
              onChange={(e) => set({ maxTokens: e.target.value })}
              placeholder="No limit"
              className="mt-1.5 tabular-nums"
            />
          </div>
        </div>
        <ErrorMessage>{error}</ErrorMessage>
      </div>
    </Card>
  );
}

function ModelFacts({ model }: { model: PanelModel }) {
  const prices = [
    ["Input", model.pricing.input],
    ["Cached", model.pricing.cached_input],
    ["Output", model.pricing.output],
  ] as const;
  const caps = [model.modalities.includes("image") && "images", model.supports_tools && "tools"].filter(Boolean);
  return (
    <div className="mt-2.5 space-y-2" data-testid="model-facts">
      <dl className="grid grid-cols-3 divide-x divide-slate-200 rounded-md bg-slate-50 py-2 text-center ring-1 ring-slate-200 ring-inset">
        {prices.map(([label, ot]) => (
          <div key={label} className="px-1">
            <dt className="text-[11px] text-slate-500">{label}</dt>
            <dd className="text-sm font-medium text-slate-900 tabular-nums">{formatOt(ot)}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-500">
        O₮ per 1M tokens · {formatCompact(model.context_window)} context{caps.length > 0 && ` · ${caps.join(", ")}`}
      </p>
      {model.development && (
        <p className="text-xs text-indigo-700">Offline development model: deterministic replies, no network.</p>
      )}
      {!model.provider_configured && (
        <p className="text-xs text-amber-700">
          The gateway has no API key for the {model.owned_by} group yet: calls to this model will fail.
        </p>
      )}
    </div>
  );
}
