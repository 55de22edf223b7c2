import { describe, expect, it } from "vitest";
import { claimSql, db } from "@/db/client";
import { runSql } from "@/db/render-sql";
import { newId } from "@/lib/ids";
import { claimManySql, type ClaimItem } from "@/lib/runs/claim-thread";
import { makeCompany, makeThread } from "../support/factories";

describe("the batched thread claim on the claim connection", () => {
  it("claims every thread of the batch and reads each one's page", async () => {
    const co = await makeCompany(db);
    const threads = await Promise.all(
      [1, 2].map((i) => makeThread(db, { companyId: co.id, messages: [{ role: "user", content: `question ${i}` }] })),
    );
    const items: ClaimItem[] = threads.map((t) => ({
      thread_id: t.id,
      run_id: newId("run"),
      company_id: co.id,
      model: "gpt-4o-mini",
      stream: false,
      owner: "test",
      after_seq: -1,
      page: 8,
    }));

    // The batch's claims travel as one jsonb parameter: sent as text, never encoded a second time.
    const rows = await runSql<{ n: number; claimed: number; content: unknown }>(claimSql, claimManySql(items));

    expect(rows.map((r) => [r.n, r.claimed, r.content])).toEqual([
      [0, 1, "question 1"],
      [1, 1, "question 2"],
    ]);
  });
});
