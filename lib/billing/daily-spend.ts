import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";

export interface DailySpend {
  day: string;
  source: string;
  spentMicro: number;
}

/** Debits per UTC day and source over the last `days` days, for the usage chart. */
export async function dailySpend(db: DbOrTx, args: { companyId: string; days: number }): Promise<DailySpend[]> {
  const rows = (await db.execute(sql`
    SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, source,
           -sum(amount_micro) AS spent
    FROM ledger_entries
    WHERE company_id = ${args.companyId} AND amount_micro < 0
      AND created_at >= now() - make_interval(days => ${args.days})
    GROUP BY 1, 2 ORDER BY 1, 2`)) as unknown as { day: string; source: string; spent: string }[];
  return rows.map((r) => ({ day: r.day, source: r.source, spentMicro: Number(r.spent) }));
}
