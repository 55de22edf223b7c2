import { formatOt, formatUsd } from "@/components/panel/format";
import { MICRO_PER_OT } from "@/lib/billing/money";
import type { DailySpendPoint } from "./api";

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function Stat({ label, valueOt, hint, testId }: { label: string; valueOt: number; hint: string; testId: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white px-5 py-4 shadow-xs">
      <dt className="text-sm font-medium text-slate-500">{label}</dt>
      <dd className="mt-1.5 flex items-baseline gap-1.5">
        <span className="text-2xl font-semibold tracking-tight text-slate-900 tabular-nums" data-testid={testId}>
          {formatOt(valueOt)}
        </span>
        <span className="text-sm font-medium text-slate-500">O₮</span>
      </dd>
      <dd className="mt-1 text-xs text-slate-500">
        <span data-testid={`${testId}-usd`}>≈ {formatUsd(valueOt)}</span>
        <span className="text-slate-400"> · {hint}</span>
      </dd>
    </div>
  );
}

export function BalanceCards({
  balanceOt,
  daily,
  nowMs,
  days,
}: {
  balanceOt: number;
  daily: DailySpendPoint[];
  nowMs: number;
  days: number;
}) {
  const today = utcDay(nowMs);
  // Sum in µO₮ integers: adding decimal O₮ floats would show 0.30000000000000004.
  const sumOt = (points: DailySpendPoint[]) =>
    points.reduce((acc, d) => acc + Math.round(d.spent_ot * MICRO_PER_OT), 0) / MICRO_PER_OT;
  return (
    <dl className="grid gap-4 sm:grid-cols-3">
      <Stat label="Balance" valueOt={balanceOt} hint="available credit" testId="balance-ot" />
      <Stat
        label="Spent today"
        valueOt={sumOt(daily.filter((d) => d.day === today))}
        hint="UTC day"
        testId="spent-today-ot"
      />
      <Stat label={`Spent, last ${days} days`} valueOt={sumOt(daily)} hint="all sources" testId="spent-period-ot" />
    </dl>
  );
}
