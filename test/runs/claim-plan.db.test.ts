import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { newId } from "@/lib/ids";
import { claimManySql, type ClaimItem } from "@/lib/runs/claim-thread";
import { makeCompany } from "../support/factories";

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

describe("the batched thread claim's plan", () => {
  it("finds each claim's thread by primary key, never by scanning the threads table", async () => {
    const co = await makeCompany(db);
    // Enough threads that a scan of the table costs the planner more than a probe per claim would
    // (the batch statement once hashed its input against a sequential scan of every thread).
    const tag = newId("thread").slice("thread_".length);
    await db.execute(sql`
      INSERT INTO threads (id, company_id, source)
      SELECT 'thread_plan' || g || '_' || ${tag}, ${co.id}, 'api' FROM generate_series(1, 5000) g`);
    await db.execute(sql`ANALYZE threads`);

    const items: ClaimItem[] = Array.from({ length: 8 }, (_, i) => ({
      thread_id: `thread_plan${i + 1}_${tag}`,
      run_id: newId("run"),
      company_id: co.id,
      model: "gpt-4o-mini",
      stream: false,
      owner: "test",
      after_seq: -1,
      page: 64,
    }));
    // EXPLAIN plans the statement without running it: nothing is claimed.
    const [row] = (await db.execute(sql`EXPLAIN (FORMAT JSON) ${claimManySql(items)}`)) as unknown as {
      "QUERY PLAN": { Plan: PlanNode }[];
    }[];
    const found = scans(row!["QUERY PLAN"][0]!.Plan);
    expect(found.filter((s) => s.endsWith(" on threads"))).toEqual(["Index Scan on threads"]);
  });
});
