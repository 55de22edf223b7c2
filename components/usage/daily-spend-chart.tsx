"use client";

import { useState } from "react";
import { formatOt, formatUsd } from "@/components/panel/format";
import { MICRO_PER_OT } from "@/lib/billing/money";
import { sourceLabel, type DailySpendPoint } from "./api";

/** Full class names (not built from parts) so Tailwind's scanner keeps them. */
const PALETTE = [
  { fill: "fill-indigo-500", bg: "bg-indigo-500" },
  { fill: "fill-sky-400", bg: "bg-sky-400" },
  { fill: "fill-emerald-500", bg: "bg-emerald-500" },
  { fill: "fill-amber-400", bg: "bg-amber-400" },
  { fill: "fill-rose-400", bg: "bg-rose-400" },
  { fill: "fill-violet-400", bg: "bg-violet-400" },
  { fill: "fill-slate-400", bg: "bg-slate-400" },
] as const;

const W = 760;
const H = 220;
const M = { top: 12, right: 8, bottom: 26, left: 52 };
const PLOT_W = W - M.left - M.right;
const PLOT_H = H - M.top - M.bottom;
const DAY_MS = 86_400_000;

const dayLabel = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const tickFormat = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3, notation: "compact" });

/** A round axis maximum (1, 2, 2.5, 5 × 10ⁿ per step) so gridlines land on readable values. */
function niceScale(max: number, ticks = 4): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 0.25 };
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((f) => f * magnitude >= raw) ?? 10) * magnitude;
  return { top: step * Math.ceil(max / step), step };
}

/** Sum decimal O₮ via integer µO₮ so totals don't pick up float noise. */
function addOt(a: number, b: number): number {
  return (Math.round(a * MICRO_PER_OT) + Math.round(b * MICRO_PER_OT)) / MICRO_PER_OT;
}

export function DailySpendChart({ daily, nowMs, days }: { daily: DailySpendPoint[]; nowMs: number; days: number }) {
  const [hovered, setHovered] = useState<number | null>(null);

  // The last `days` UTC days, oldest first, ending today (the API groups by UTC day).
  const dayKeys = Array.from({ length: days }, (_, i) =>
    new Date(nowMs - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const inRange = new Set(dayKeys);
  const points = daily.filter((d) => inRange.has(d.day) && d.spent_ot > 0);

  // Biggest source first: it sits at the bottom of each stack and gets the first colour.
  const totals = new Map<string, number>();
  for (const p of points) totals.set(p.source, addOt(totals.get(p.source) ?? 0, p.spent_ot));
  const sources = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  const color = (source: string) => PALETTE[Math.min(sources.indexOf(source), PALETTE.length - 1)]!;

  const byDay = dayKeys.map((day) => {
    const segments = sources
      .map((source) => ({
        source,
        ot: points.filter((p) => p.day === day && p.source === source).reduce((a, p) => addOt(a, p.spent_ot), 0),
      }))
      .filter((s) => s.ot > 0);
    return { day, segments, total: segments.reduce((a, s) => addOt(a, s.ot), 0) };
  });

  const { top, step } = niceScale(Math.max(0, ...byDay.map((d) => d.total)));
  const y = (ot: number) => M.top + PLOT_H - (ot / top) * PLOT_H;
  const slot = PLOT_W / days;
  const barW = Math.max(2, slot * 0.62);
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  const hoveredDay = hovered === null ? null : byDay[hovered];

  if (points.length === 0) {
    return (
      <div
        className="flex h-40 flex-col items-center justify-center rounded-lg border border-dashed border-slate-200 text-center"
        data-testid="daily-spend-chart"
      >
        <p className="text-sm font-medium text-slate-700">No spend in the last {days} days</p>
        <p className="mt-1 text-sm text-slate-500">Billed calls and usage events will show up here per day.</p>
      </div>
    );
  }

  return (
    <div data-testid="daily-spend-chart">
      <div className="relative">
        <svg
          viewBox={`0 0 ${W} ${H}`}
          className="h-auto w-full select-none"
          role="img"
          aria-label={`Daily spend by source over the last ${days} days`}
          onMouseLeave={() => setHovered(null)}
        >
          {ticks.map((t) => (
            <g key={t}>
              <line
                x1={M.left}
                x2={W - M.right}
                y1={y(t)}
                y2={y(t)}
                className={t === 0 ? "stroke-slate-300" : "stroke-slate-100"}
              />
              <text
                x={M.left - 8}
                y={y(t)}
                dy="0.32em"
                textAnchor="end"
                className="fill-slate-400 text-[10px] tabular-nums"
              >
                {tickFormat.format(t)}
              </text>
            </g>
          ))}
          {byDay.map((d, i) => {
            const x = M.left + i * slot + (slot - barW) / 2;
            let acc = 0;
            return (
              <g key={d.day} onMouseEnter={() => setHovered(i)}>
                {/* Full-height hit area: thin bars are hard to point at. */}
                <rect
                  x={M.left + i * slot}
                  y={M.top}
                  width={slot}
                  height={PLOT_H}
                  className={hovered === i ? "fill-slate-100" : "fill-transparent"}
                />
                {d.segments.map((s) => {
                  const y0 = y(acc);
                  acc = addOt(acc, s.ot);
                  const y1 = y(acc);
                  return (
                    <rect
                      key={s.source}
                      x={x}
                      y={y1}
                      width={barW}
                      height={Math.max(1, y0 - y1)}
                      className={color(s.source).fill}
                      data-testid="chart-bar"
                      data-day={d.day}
                      data-source={s.source}
                      data-ot={s.ot}
                    />
                  );
                })}
                {i % 5 === (days - 1) % 5 && (
                  <text
                    x={M.left + i * slot + slot / 2}
                    y={H - 8}
                    textAnchor="middle"
                    className="fill-slate-400 text-[10px]"
                  >
                    {dayLabel.format(new Date(`${d.day}T00:00:00Z`))}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
        {hoveredDay && hovered !== null && (
          <div
            className="pointer-events-none absolute top-0 z-10 w-52 -translate-x-1/2 rounded-lg bg-slate-900 px-3 py-2 text-xs text-white shadow-lg"
            style={{ left: `${Math.min(88, Math.max(12, ((M.left + (hovered + 0.5) * slot) / W) * 100))}%` }}
            role="tooltip"
          >
            <div className="flex justify-between font-medium">
              <span>{dayLabel.format(new Date(`${hoveredDay.day}T00:00:00Z`))}</span>
              <span className="tabular-nums">{formatOt(hoveredDay.total)} O₮</span>
            </div>
            {hoveredDay.segments.length === 0 ? (
              <div className="mt-1 text-slate-400">No spend</div>
            ) : (
              <ul className="mt-1.5 space-y-1">
                {[...hoveredDay.segments].reverse().map((s) => (
                  <li key={s.source} className="flex items-center gap-2">
                    <span className={`size-2 rounded-sm ${color(s.source).bg}`} aria-hidden="true" />
                    <span className="flex-1 truncate text-slate-300">{sourceLabel(s.source)}</span>
                    <span className="tabular-nums">{formatOt(s.ot)}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <ul className="mt-3 flex flex-wrap gap-x-5 gap-y-2 text-xs text-slate-600" aria-label="Legend">
        {sources.map((s) => (
          <li key={s} className="flex items-center gap-1.5">
            <span className={`size-2.5 rounded-sm ${color(s).bg}`} aria-hidden="true" />
            <span>{sourceLabel(s)}</span>
            <span className="text-slate-400 tabular-nums">
              {formatOt(totals.get(s)!)} O₮ · {formatUsd(totals.get(s)!)}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
