/** A search hit's relevance (0 to 1, lib/knowledge/relevance.ts) as a bar and a two-decimal number. */
export function Relevance({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="text-slate-400">—</span>;
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <span
      className="inline-flex items-center gap-1.5 tabular-nums"
      data-testid="relevance"
      data-value={value}
      title="Relevance: 1 = ranked first by every ranker (BM25 and vector), lower as the ranks fall"
    >
      <span className="relative h-1.5 w-12 overflow-hidden rounded-full bg-slate-100" aria-hidden="true">
        <span className="absolute inset-y-0 left-0 rounded-full bg-indigo-500" style={{ width: `${pct}%` }} />
      </span>
      <span className="font-mono text-xs text-slate-700">{value.toFixed(2)}</span>
    </span>
  );
}

/** One ranker's place and score for a hit: `#3 · 0.62`, or a dash when the ranker did not list it. */
export function RankerScore({ rank, score, digits }: { rank: number | null; score: number | null; digits: number }) {
  if (rank === null) return <span className="text-slate-400">—</span>;
  return (
    <span className="font-mono text-xs text-slate-700 tabular-nums">
      #{rank}
      {score !== null && <span className="text-slate-400"> · {score.toFixed(digits)}</span>}
    </span>
  );
}
