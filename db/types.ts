import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgTransaction } from "drizzle-orm/pg-core";
import type { PostgresJsQueryResultHKT } from "drizzle-orm/postgres-js";
import type { Db } from "./client";
import type * as schema from "./schema";

export type Tx = PgTransaction<PostgresJsQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>;
/** A client or a transaction: verbs take either, and a transaction passed in nests as a savepoint. */
export type DbOrTx = Db | Tx;
