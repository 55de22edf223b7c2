/** Plain-text tables for benchmark output: first column left-aligned, the others right-aligned. */
export type Cell = string | number | null | undefined;

export function fmt(v: Cell, digits = 2): string {
  if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) return "-";
  if (typeof v === "number")
    return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return v;
}

export function renderTable(header: string[], rows: Cell[][], opts: { leftColumns?: number } = {}): string {
  const left = opts.leftColumns ?? 1;
  const text = rows.map((r) => r.map((c) => (typeof c === "string" ? c : fmt(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const sep = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), sep, ...text.map(line)].join("\n");
}
