/** Child process for the two-process ledger test: N parallel 1 O₮ charges, prints {ok, refused}. */
import { db, sql } from "@/db/client";
import { charge } from "@/lib/billing";

const [companyId, n] = process.argv.slice(2);
const results = await Promise.allSettled(
  Array.from({ length: Number(n) }, () =>
    charge(db, { companyId: companyId!, costMicro: 1_000_000, entry: { kind: "usage", source: "test" } }),
  ),
);
const ok = results.filter((r) => r.status === "fulfilled").length;
const refused = results.filter(
  (r) => r.status === "rejected" && (r.reason as { status?: number }).status === 402,
).length;
process.stdout.write(JSON.stringify({ ok, refused }));
await sql.end({ timeout: 5 });
