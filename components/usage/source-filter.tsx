"use client";

import { Spinner } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { sourceLabel } from "./api";

const ALL = "";

export function SourceFilter({
  value,
  options,
  onChange,
  pending,
}: {
  value: string | null;
  options: string[];
  onChange: (source: string | null) => void;
  pending: boolean;
}) {
  return (
    <div className="flex items-center gap-2">
      {pending && <Spinner className="size-3.5 text-slate-400" />}
      <label htmlFor="source-filter" className="text-sm text-slate-500">
        Source
      </label>
      <Select
        id="source-filter"
        data-testid="source-filter"
        value={value ?? ALL}
        onChange={(e) => onChange(e.target.value === ALL ? null : e.target.value)}
        className="w-52 py-1.5"
      >
        <option value={ALL}>All sources</option>
        {options.map((s) => (
          <option key={s} value={s}>
            {sourceLabel(s) === s ? s : `${sourceLabel(s)} (${s})`}
          </option>
        ))}
      </Select>
    </div>
  );
}
