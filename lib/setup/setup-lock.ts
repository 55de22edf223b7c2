import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";

const SETUP_LOCK_ID = 727_003;

/** Serialises issuing and using setup tokens, so two tabs cannot both create the first admin. Needs a transaction. */
export async function takeSetupLock(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK_ID})`);
}
