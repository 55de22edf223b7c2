"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { PublicCompany } from "@/lib/companies/to-public-company";
import { queryKeys } from "@/lib/query-keys";
import { cn } from "@/components/ui/cn";
import { fetchJson } from "./fetch-json";
import { formatOt } from "./format";

/**
 * Polled so spend from keys and agents shows up without a reload; a focus refetches at once. Its key
 * sits under `queryKeys.usage.all`: invalidating that after a call that spends refreshes it at once.
 */
const REFRESH_MS = 10_000;

function fetchCompany(): Promise<PublicCompany> {
  return fetchJson<PublicCompany>("/api/panel/company");
}

/** The company's name and live balance in O₮: a block in the sidebar, one line in the phone's top bar. */
export function CompanyBalance({
  initial,
  loadedAt,
  compact = false,
}: {
  initial: PublicCompany;
  loadedAt: number;
  compact?: boolean;
}) {
  const { data } = useQuery({
    queryKey: queryKeys.usage.company(),
    queryFn: fetchCompany,
    initialData: initial,
    initialDataUpdatedAt: loadedAt,
    refetchInterval: REFRESH_MS,
    refetchOnWindowFocus: true,
  });
  const balance = (
    <Link
      href="/usage"
      className={cn(
        "font-medium tabular-nums hover:text-indigo-700",
        data.balance_ot > 0 ? "text-slate-900" : "text-rose-700",
      )}
      title={data.balance_ot > 0 ? "Balance: see usage" : "No credit left: calls are refused until credit is granted"}
      data-testid="company-balance"
    >
      {formatOt(data.balance_ot)} <span className="font-normal text-slate-500">O₮</span>
    </Link>
  );
  if (compact)
    return (
      <div className="flex min-w-0 items-baseline gap-2 text-sm" data-testid="company-frame">
        <span className="truncate text-slate-700" title={data.name} data-testid="company-name">
          {data.name}
        </span>
        <span className="shrink-0">{balance}</span>
      </div>
    );
  return (
    <div className="rounded-md bg-slate-50 px-3 py-2 ring-1 ring-slate-200 ring-inset" data-testid="company-frame">
      <div className="truncate text-xs font-medium text-slate-500" title={data.name} data-testid="company-name">
        {data.name}
      </div>
      <div className="mt-0.5 text-sm">{balance}</div>
    </div>
  );
}
