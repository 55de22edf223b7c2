"use client";

import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Table, TableMessage, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { formatInt, formatOt, formatSignedOt } from "@/components/panel/format";
import { Timestamp } from "@/components/panel/timestamp";
import { LEDGER_KIND, type LedgerKind } from "@/db/enums";
import type { LedgerEntry } from "./api";

const COLUMNS = 7;

const KIND_TONE: Record<LedgerKind, BadgeTone> = {
  [LEDGER_KIND.grant]: "green",
  [LEDGER_KIND.completion]: "indigo",
  [LEDGER_KIND.run]: "indigo",
  [LEDGER_KIND.usage]: "neutral",
  [LEDGER_KIND.adjustment]: "amber",
};

/** One short line of context from the entry's metadata (call length, grant note). */
function detail(entry: LedgerEntry): string | null {
  const m = entry.metadata;
  if (typeof m.duration_s === "number") {
    return [`${formatOt(m.duration_s)} s`, typeof m.direction === "string" ? m.direction : null]
      .filter(Boolean)
      .join(" · ");
  }
  if (typeof m.note === "string") return m.note;
  return null;
}

export function LedgerTable({
  entries,
  loading,
  filtered,
}: {
  entries: LedgerEntry[];
  loading: boolean;
  filtered: boolean;
}) {
  return (
    <Table data-testid="ledger-table">
      <THead>
        <tr>
          <TH>Time</TH>
          <TH>Kind</TH>
          <TH>Source</TH>
          <TH>Model</TH>
          <TH align="right">Tokens</TH>
          <TH align="right">Amount (O₮)</TH>
          <TH align="right">Balance after</TH>
        </tr>
      </THead>
      <TBody>
        {loading ? (
          <TableMessage colSpan={COLUMNS}>Loading…</TableMessage>
        ) : entries.length === 0 ? (
          <TableMessage colSpan={COLUMNS}>
            <p className="font-medium text-slate-700">
              {filtered ? "No entries for this source" : "No ledger entries yet"}
            </p>
            <p className="mt-1">Credit grants and every billed call appear here.</p>
          </TableMessage>
        ) : (
          entries.map((entry) => <LedgerRow key={entry.id} entry={entry} />)
        )}
      </TBody>
    </Table>
  );
}

function LedgerRow({ entry }: { entry: LedgerEntry }) {
  const info = detail(entry);
  const hasTokens = entry.prompt_tokens !== null || entry.completion_tokens !== null;
  return (
    <TR data-testid="ledger-row" data-entry-id={entry.id} data-source={entry.source} data-kind={entry.kind}>
      <TD className="text-slate-500">
        <Timestamp unix={entry.created_at} />
      </TD>
      <TD>
        <Badge tone={KIND_TONE[entry.kind]}>{entry.kind}</Badge>
      </TD>
      <TD>
        <div className="font-mono text-xs text-slate-800" data-testid="ledger-source">
          {entry.source}
        </div>
        {info && <div className="mt-0.5 max-w-48 truncate text-xs text-slate-400">{info}</div>}
      </TD>
      <TD className="font-mono text-xs">{entry.model ?? <span className="text-slate-400">—</span>}</TD>
      <TD align="right" className="text-xs">
        {hasTokens ? (
          <span title="prompt / completion tokens">
            {formatInt(entry.prompt_tokens ?? 0)} <span className="text-slate-400">/</span>{" "}
            {formatInt(entry.completion_tokens ?? 0)}
          </span>
        ) : (
          <span className="text-slate-400">—</span>
        )}
      </TD>
      <TD
        align="right"
        className={entry.amount_ot > 0 ? "font-medium text-emerald-700" : "font-medium text-slate-900"}
        data-testid="ledger-amount"
      >
        {formatSignedOt(entry.amount_ot)}
      </TD>
      <TD align="right" className="text-slate-600" data-testid="ledger-balance-after">
        {formatOt(entry.balance_after_ot)}
      </TD>
    </TR>
  );
}
