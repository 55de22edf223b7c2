import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { getBoss, JOBS_SCHEMA, stopBoss } from "@/lib/jobs/boss";

afterAll(() => stopBoss());

// pg-boss's own fetch statement (the one its workers run), not a copy of it.
const plans = createRequire(import.meta.url)("pg-boss/src/plans") as {
  fetchNextJob: (schema: string) => (o: { includeMetadata?: boolean }) => string;
};

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Subplan Name"?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe("pg-boss fetch", () => {
  it("takes the next job of a long backlog from an index in fetch order, without sorting the backlog", async () => {
    const boss = await getBoss();
    const queue = `fetch-order-${Date.now()}`;
    await boss.createQueue(queue);
    try {
      // A backlog: 5,001 queued jobs (a burst of webhook events the worker has not reached yet).
      await boss.send(queue, { n: -1 });
      for (let i = 0; i < 5; i++)
        await boss.insert(Array.from({ length: 1000 }, (_, j) => ({ name: queue, data: { n: i * 1000 + j } })));
      await boss.getDb().executeSql(`ANALYZE ${JOBS_SCHEMA}.job`, []);
      const fetchSql = plans.fetchNextJob(JOBS_SCHEMA)({ includeMetadata: true });
      const { rows } = await boss.getDb().executeSql(`EXPLAIN (FORMAT JSON) ${fetchSql}`, [queue, 1]);
      // The CTE choosing the next job (the window function above it sorts only what it chose).
      const next = nodes((rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan).find(
        (n) => n["Subplan Name"] === "CTE next",
      );
      const chooser = nodes(next!);
      // Without the index the fetch sorts the whole backlog, making a drain quadratic in its
      // length.
      expect(chooser.filter((n) => n["Node Type"] === "Sort")).toEqual([]);
      expect(
        chooser.some(
          (n) => n["Node Type"] === "Index Scan" && /name_priority_created_on_id/.test(n["Index Name"] ?? ""),
        ),
      ).toBe(true);
      // And it still hands out the oldest job first.
      const [first] = await boss.fetch<{ n: number }>(queue);
      expect(first?.data.n).toBe(-1);
    } finally {
      await boss.purgeQueue(queue);
    }
  });
});
