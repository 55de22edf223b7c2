"use client";

import Link from "next/link";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
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
  if (!loading && entries.length === 0)
    return (
      <EmptyState title={filtered ? "No entries for this source" : "No ledger entries yet"}>
        Credit grants and every billed call appear here. With credit (the gateway&apos;s operator grants it), make a
        first call in the{" "}
        <Link href="/playground" className="font-medium text-indigo-600 hover:underline">
          Playground
        </Link>{" "}
        or with an API key.
      </EmptyState>
    );
  return (
    <Table data-testid="ledger-table">
      <THead>
        <tr>
          <TH>Time</TH>
          <TH className="hidden sm:table-cell">Kind</TH>
          <TH className="hidden sm:table-cell">Source</TH>
          <TH className="hidden md:table-cell">Model</TH>
          <TH align="right" className="hidden lg:table-cell">
            Tokens
          </TH>
          <TH align="right">Amount (O₮)</TH>
          <TH align="right" className="hidden sm:table-cell">
            Balance after
          </TH>
        </tr>
      </THead>
      <TBody>
        {loading ? (
          <TableMessage colSpan={COLUMNS}>Loading…</TableMessage>
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
        <div className="font-mono text-xs text-slate-800 sm:hidden">{entry.source}</div>
      </TD>
      <TD className="hidden sm:table-cell">
        <Badge tone={KIND_TONE[entry.kind]}>{entry.kind}</Badge>
      </TD>
      <TD className="hidden sm:table-cell">
        <div className="font-mono text-xs text-slate-800" data-testid="ledger-source">
          {entry.source}
        </div>
        {info && <div className="mt-0.5 max-w-48 truncate text-xs text-slate-400">{info}</div>}
      </TD>
      <TD className="hidden font-mono text-xs md:table-cell">
        {entry.model ?? <span className="text-slate-400">—</span>}
      </TD>
      <TD align="right" className="hidden text-xs lg:table-cell">
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
      <TD align="right" className="hidden text-slate-600 sm:table-cell" data-testid="ledger-balance-after">
        {formatOt(entry.balance_after_ot)}
      </TD>
    </TR>
  );
}
