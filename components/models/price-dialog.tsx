"use client";

import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, Input, Label } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { formatOt, formatUsd } from "@/components/panel/format";
import type { ModelPricing, PanelModel } from "./api";
import { useModelMutations } from "./use-model-mutations";

type PriceKey = keyof Omit<ModelPricing, "unit">;

const FIELDS: { key: PriceKey; body: "input_per_m" | "cached_input_per_m" | "output_per_m"; label: string; hint: string }[] = [
  { key: "input", body: "input_per_m", label: "Input", hint: "Prompt tokens" },
  { key: "cached_input", body: "cached_input_per_m", label: "Cached input", hint: "Prompt tokens the provider served from its cache" },
  { key: "output", body: "output_per_m", label: "Output", hint: "Completion tokens" },
];

/** The API's bound (ModelOverrideInput). */
const MAX_PRICE_OT = 1_000_000;

const CATALOG_PRICES = { input_per_m: null, cached_input_per_m: null, output_per_m: null };

export function hasCustomPrices(model: PanelModel): boolean {
  return FIELDS.some((f) => model.pricing[f.key] !== model.catalog.pricing[f.key]);
}

export function PriceDialog({ model }: { model: PanelModel }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm" aria-label={`Edit prices of ${model.id}`} data-testid="edit-prices">
          <svg viewBox="0 0 20 20" fill="currentColor" className="size-3.5" aria-hidden="true">
            <path d="m2.695 14.762-1.262 3.155a.5.5 0 0 0 .65.65l3.155-1.262a4 4 0 0 0 1.343-.886L17.5 5.501a2.121 2.121 0 0 0-3-3L3.58 13.419a4 4 0 0 0-.885 1.343Z" />
          </svg>
          Prices
        </Button>
      </DialogTrigger>
      {/* Mounted only while open: each opening starts from the prices the row shows now. */}
      {open && <PriceForm model={model} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function PriceForm({ model, onDone }: { model: PanelModel; onDone: () => void }) {
  const { update } = useModelMutations(model.id);
  const catalog = model.catalog.pricing;
  const [values, setValues] = useState<Record<PriceKey, string>>({
    input: String(model.pricing.input),
    cached_input: String(model.pricing.cached_input),
    output: String(model.pricing.output),
  });
  const [formError, setFormError] = useState<string | null>(null);
  const custom = hasCustomPrices(model);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const prices = {} as Record<PriceKey, number>;
    for (const f of FIELDS) {
      const raw = values[f.key].trim();
      const ot = raw === "" ? catalog[f.key] : Number(raw);
      if (!Number.isFinite(ot) || ot < 0 || ot > MAX_PRICE_OT) {
        return setFormError(`${f.label}: enter a price from 0 to ${formatOt(MAX_PRICE_OT)} O₮ per 1M tokens.`);
      }
      prices[f.key] = ot;
    }
    setFormError(null);
    // All three are sent explicitly: the API prices cached input like input when only the input
    // price is custom, and what the dialog shows must be what gets billed.
    const body = FIELDS.every((f) => prices[f.key] === catalog[f.key])
      ? CATALOG_PRICES
      : { input_per_m: prices.input, cached_input_per_m: prices.cached_input, output_per_m: prices.output };
    update.mutate(body, { onSuccess: onDone });
  }

  return (
    <DialogContent
      title="Edit prices"
      description={
        <>
          What your company is billed for <code className="font-mono text-slate-700">{model.id}</code>, in O₮ per 1M tokens (1 O₮ = $0.001).
        </>
      }
      data-testid="price-dialog"
    >
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        {FIELDS.map((f) => {
          const raw = values[f.key].trim();
          const ot = raw === "" ? catalog[f.key] : Number(raw);
          const differs = Number.isFinite(ot) && ot !== catalog[f.key];
          return (
            <div key={f.key} className="grid grid-cols-[1fr_11rem] items-start gap-x-4">
              <div className="pt-1.5">
                <Label htmlFor={`price-${f.key}`}>{f.label}</Label>
                <p className="text-xs text-slate-500">{f.hint}</p>
              </div>
              <div>
                <div className="relative">
                  <Input
                    id={`price-${f.key}`}
                    name={f.body}
                    type="number"
                    inputMode="decimal"
                    min={0}
                    max={MAX_PRICE_OT}
                    step="any"
                    value={values[f.key]}
                    placeholder={String(catalog[f.key])}
                    onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
                    className="pr-10 text-right tabular-nums"
                  />
                  <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-xs text-slate-400">O₮</span>
                </div>
                <p className="mt-1 text-right text-xs text-slate-500 tabular-nums">
                  {Number.isFinite(ot) ? `≈ ${formatUsd(ot)}` : "—"}
                  <span className={differs ? "text-indigo-600" : "text-slate-400"}> · catalog {formatOt(catalog[f.key])}</span>
                </p>
              </div>
            </div>
          );
        })}
        <ErrorMessage>{formError ?? (update.isError ? errorMessage(update.error) : null)}</ErrorMessage>
        <DialogFooter>
          <Button
            variant="ghost"
            className="mr-auto"
            onClick={() => update.mutate(CATALOG_PRICES, { onSuccess: onDone })}
            disabled={update.isPending || !custom}
            title={custom ? undefined : "These are the catalog prices"}
          >
            Use catalog prices
          </Button>
          <DialogClose asChild>
            <Button variant="secondary" disabled={update.isPending}>
              Cancel
            </Button>
          </DialogClose>
          <Button type="submit" disabled={update.isPending}>
            {update.isPending && <Spinner />}
            Save prices
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
