import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { Tx } from "@/db/types";
import { commitExclusive, commitWithGroup } from "@/lib/persistence/group-commit";
import { billWithHold } from "./bill-with-hold";
import type { EntryInput } from "./entries";
import { insertEntrySql } from "./internal";
import type { CreditHold } from "./lease";
import { drawHoldCtes } from "./draw-hold";

/** A call's bill as plain data (a run's or a completion's), so a retry or a journal replay bills the same. */
export interface CallBill {
  companyId: string;
  costMicro: number;
  /** False: no ledger row at all (a call that never reached a model and made no stage calls). */
  billable: boolean;
  /** The entry's id is set by the caller (derived from the record's), which makes every path idempotent. */
  entry: EntryInput;
  hold: CreditHold | null;
}

/**
 * The record a bill is written with, in the same statement (CTEs and output columns are the
 * caller's; the bill's own CTEs are `r`, `c` and `bill`, so the record's must be named apart).
 */
export interface BilledRecord {
  ctes: SQL;
  /** True in the statement when it wrote the record now (false: an earlier attempt stored it, with its bill). */
  writtenNow: SQL;
  /** The statement's output columns; `stored` is 1 when it wrote the record now, else 0. */
  columns: SQL;
}

export interface StoredRow {
  stored: number;
}

export interface CallBillOutcome<Row extends StoredRow> {
  /** The record's output row (undefined when the statement that wrote it was a retry's bill only). */
  row?: Row;
  /** What the bill drew from the call's lease (for endHold). */
  drawnMicro: number;
  /** What the ledger entry charged, when it differs from the bill's cost (a shortfall). */
  chargedMicro?: number;
  /** The record and its bill were already stored by an earlier attempt whose acknowledgement was lost. */
  already: boolean;
}

/** A bill with no record of its own (every statement reports `stored` 1). */
const NO_RECORD: BilledRecord = {
  ctes: sql`rec AS (SELECT 1)`,
  writtenNow: sql`true`,
  columns: sql`1 AS stored`,
};

/**
 * Stores a record and bills it in ONE statement, committed through the group committer: the
 * record and its ledger row become durable together, in a single round trip. Idempotent (the
 * record's CTEs write nothing when it is stored, and the entry id is known), so the caller may
 * run it again after any failure. Commits on the group committer's connection, not a caller's.
 *
 * Draws the actual cost from the call's credit lease (the normal case: the cost is within the
 * call's hold, because the cap the hold covers is the cap the upstream received). A call that cost
 * more than its hold (a provider that ignored the cap or counted the prompt higher than we did),
 * or whose lease the reconciler released, is billed by billWithHold: its own hold first, then the
 * unreserved balance, never below zero, the shortfall noted; for the first case the record and
 * the bill share one transaction.
 */
export async function billCall<Row extends StoredRow>(
  bill: CallBill,
  record: BilledRecord = NO_RECORD,
): Promise<CallBillOutcome<Row>> {
  const { hold, entry } = bill;
  const cost = bill.costMicro;
  const billRest = async (tx: Tx, lease: CreditHold["lease"], holdMicro: number) => {
    const r = await billWithHold(tx, { companyId: bill.companyId, lease, holdMicro, costMicro: cost, entry });
    return {
      drawnMicro: r.drawnMicro,
      already: r.alreadyBilled === true,
      ...(r.entry ? { chargedMicro: -r.entry.amountMicro } : {}),
    };
  };
  if (!bill.billable) {
    const [row] = (await commitWithGroup(sql`WITH ${record.ctes} SELECT ${record.columns}`)) as Row[];
    return { row, drawnMicro: 0, already: row?.stored === 0 };
  }
  if (cost === 0) {
    const [row] = (await commitWithGroup(
      sql`WITH ${record.ctes}, c AS (SELECT id, balance_micro FROM companies WHERE id = ${bill.companyId} AND ${record.writtenNow}),
          bill AS (${insertEntrySql("c", 0, entry, "id")}) SELECT ${record.columns}`,
    )) as Row[];
    return { row, drawnMicro: 0, already: row?.stored === 0 };
  }
  if (hold?.lease && cost <= hold.amountMicro) {
    const [row] = (await commitWithGroup(
      sql`WITH ${record.ctes}, ${drawHoldCtes(hold.lease, cost, record.writtenNow)},
          bill AS (${insertEntrySql("c", -cost, entry, "id")})
          SELECT ${record.columns}, (SELECT count(*) FROM bill)::int AS billed`,
    )) as (Row & { billed: number })[];
    // Stored earlier. Billed with it (that statement drew the cost from the lease), unless the
    // lease was gone then and the bill from the balance that followed failed: billed now. The
    // entry's id is known, so a bill that did happen is found and not repeated.
    if (row?.stored === 0) {
      const rest = await commitExclusive((tx) => billRest(tx, null, 0));
      return rest.already ? { row, drawnMicro: cost, already: true } : { row, ...rest };
    }
    if (row?.billed === 1) return { row, drawnMicro: cost, already: false };
    // The lease was released under us (the record is stored): bill from the balance.
    return { row, ...(await commitExclusive((tx) => billRest(tx, null, 0))) };
  }
  return commitExclusive(async (tx) => {
    const [row] = (await tx.execute(sql`WITH ${record.ctes} SELECT ${record.columns}`)) as unknown as Row[];
    // Record and bill share this transaction: a stored record was billed with it.
    if (row?.stored === 0) return { row, drawnMicro: 0, already: true };
    return { row, ...(await billRest(tx, hold?.lease ?? null, hold?.amountMicro ?? 0)) };
  });
}
