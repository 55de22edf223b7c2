import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { claimSql, db } from "@/db/client";
import { runSql } from "@/db/render-sql";
import { newId } from "@/lib/ids";
import { claimManySql, type ClaimItem } from "@/lib/runs/claim-thread";
import { makeCompany, makeThread } from "../support/factories";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function scans(node: PlanNode, out: string[] = []): string[] {
  if (node["Relation Name"]) out.push(`${node["Node Type"]} on ${node["Relation Name"]}`);
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

const claimItem = (threadId: string, companyId: string, page: number): ClaimItem => ({
  thread_id: threadId,
  run_id: newId("run"),
  company_id: companyId,
  model: "gpt-4o-mini",
  stream: false,
  owner: "test",
  after_seq: -1,
  page,
});

describe("the batched thread claim", () => {
  it("finds each claim's thread by primary key, never by scanning the threads table", async () => {
    const co = await makeCompany(db);
    // Enough threads that a scan of the table costs the planner more than a probe per claim would
    // (the batch statement once hashed its input against a sequential scan of every thread).
    const tag = newId("thread").slice("thread_".length);
    await db.execute(sql`
      INSERT INTO threads (id, company_id, source)
      SELECT 'thread_plan' || g || '_' || ${tag}, ${co.id}, 'api' FROM generate_series(1, 5000) g`);
    await db.execute(sql`ANALYZE threads`);

    const items = Array.from({ length: 8 }, (_, i) => claimItem(`thread_plan${i + 1}_${tag}`, co.id, 64));
    // EXPLAIN plans the statement without running it: nothing is claimed.
    const [row] = (await db.execute(sql`EXPLAIN (FORMAT JSON) ${claimManySql(items)}`)) as unknown as {
      "QUERY PLAN": { Plan: PlanNode }[];
    }[];
    const found = scans(row!["QUERY PLAN"][0]!.Plan);
    expect(found.filter((s) => s.endsWith(" on threads"))).toEqual(["Index Scan on threads"]);
  });

  it("claims every thread of the batch on the claim connection and reads each one's page", async () => {
    const co = await makeCompany(db);
    const threads = await Promise.all(
      [1, 2].map((i) => makeThread(db, { companyId: co.id, messages: [{ role: "user", content: `question ${i}` }] })),
    );
    const items = threads.map((t) => claimItem(t.id, co.id, 8));

    // The batch's claims travel as one jsonb parameter: sent as text, never encoded a second time.
    const rows = await runSql<{ n: number; claimed: number; content: unknown }>(claimSql, claimManySql(items));

    expect(rows.map((r) => [r.n, r.claimed, r.content])).toEqual([
      [0, 1, "question 1"],
      [1, 1, "question 2"],
    ]);
  });
});
