import { describe, expect, it } from "vitest";
import { appendHistory, cachedHistory, rememberHistory, type HistoryRow } from "./history-cache";

/** Rows as the claim reads them: newest first, with the claim's extra columns and an empty `extra`. */
function read(from: number, to: number): HistoryRow[] {
  const rows: HistoryRow[] = [];
  for (let seq = to; seq >= from; seq--) {
    rows.push({
      source: "api",
      claimed: 1,
      seq,
      role: seq % 2 ? "assistant" : "user",
      content: `(${seq}) ${"a sentence of text ".repeat(6)}`,
      extra: {},
      tokens: 30,
    } as HistoryRow);
  }
  return rows;
}

/** What a run does with the cache: read above the cached rows, then remember the whole. */
function run(companyId: string, threadId: string, newest: number): "hit" | "miss" {
  const cached = cachedHistory(companyId, threadId);
  const above = cached ? cached.rows.at(-1)!.seq + 1 : 0;
  const rows = read(above, newest);
  if (cached) for (let i = cached.rows.length - 1; i >= 0; i--) rows.push(cached.rows[i]!);
  rememberHistory(companyId, threadId, rows, true);
  return cached ? "hit" : "miss";
}

describe("history cache", () => {
  it("keeps compact frozen copies, ascending, shared by later runs", () => {
    run("co_a", "thread_compact", 3);
    const first = cachedHistory("co_a", "thread_compact")!;
    expect(first.rows.map((r) => r.seq)).toEqual([0, 1, 2, 3]);
    expect(first.complete).toBe(true);
    const row = first.rows[1]!;
    expect(Object.isFrozen(row)).toBe(true);
    expect(row).toMatchObject({ seq: 1, role: "assistant", extra: null, tokens: 30 });
    expect(row).not.toHaveProperty("source");
    expect(() => {
      (row as { content: unknown }).content = "changed";
    }).toThrow(TypeError);
    // The next run adds one row and keeps the cached objects themselves.
    expect(run("co_a", "thread_compact", 4)).toBe("hit");
    const second = cachedHistory("co_a", "thread_compact")!;
    expect(second.rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(second.rows[1]).toBe(row);
  });

  it("keeps parts and a non-empty extra, frozen", () => {
    const parts = [{ type: "text", text: "look" }];
    rememberHistory(
      "co_a",
      "thread_parts",
      [{ seq: 0, role: "assistant", content: parts, extra: { name: "bot" }, tokens: null }],
      true,
    );
    const [row] = cachedHistory("co_a", "thread_parts")!.rows;
    expect(row).toMatchObject({ content: [{ type: "text", text: "look" }], extra: { name: "bot" } });
    expect(Object.isFrozen(row!.content)).toBe(true);
    expect(Object.isFrozen((row!.content as object[])[0])).toBe(true);
    expect(Object.isFrozen(row!.extra)).toBe(true);
  });

  it("appends what this process stored only where it follows the cached rows directly", () => {
    const row = (seq: number, content = `(${seq})`): HistoryRow => ({
      seq,
      role: "assistant",
      content,
      extra: null,
      tokens: 3,
    });
    // A thread without an entry (no run here read it) gets none.
    appendHistory("co_a", "thread_append", [row(0), row(1)]);
    expect(cachedHistory("co_a", "thread_append")).toBeUndefined();
    rememberHistory("co_a", "thread_append", [row(1), row(0)], true);
    // A run took the entry before its claim: it keeps the rows it saw when an answer is appended.
    const seen = cachedHistory("co_a", "thread_append")!;
    appendHistory("co_a", "thread_append", [row(2)]);
    expect(seen.rows.map((r) => r.seq)).toEqual([0, 1]);
    expect(cachedHistory("co_a", "thread_append")!.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
    // A gap (seq 3 stored elsewhere, not seen here), another company, or rows out of order: nothing changes.
    appendHistory("co_a", "thread_append", [row(4)]);
    appendHistory("co_b", "thread_append", [row(3)]);
    appendHistory("co_a", "thread_append", [row(3), row(5)]);
    expect(cachedHistory("co_a", "thread_append")!.rows.map((r) => r.seq)).toEqual([0, 1, 2]);
    appendHistory("co_a", "thread_append", [row(3), row(4)]);
    const now = cachedHistory("co_a", "thread_append")!;
    expect(now.rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(Object.isFrozen(now.rows[4])).toBe(true);
    // A run that read nothing new leaves the entry itself in place.
    rememberHistory("co_a", "thread_append", now.rows.toReversed(), true);
    expect(cachedHistory("co_a", "thread_append")).toBe(now);
  });

  it("answers nothing for another company's lookup of a cached thread", () => {
    run("co_a", "thread_tenant", 2);
    expect(cachedHistory("co_b", "thread_tenant")).toBeUndefined();
    expect(cachedHistory("co_a", "thread_tenant")?.rows).toHaveLength(3);
  });

  it("keeps most of a cycle of threads larger than it holds (exact LRU kept none)", () => {
    // About 1.4 times what the cache holds, so eviction runs.
    const threads = 2_000;
    const newest = new Array<number>(threads).fill(20);
    let hits = 0;
    let runs = 0;
    for (let round = 0; round < 6; round++) {
      for (let t = 0; t < threads; t++) {
        const hit = run("co_cycle", `thread_cycle_${t}`, ++newest[t]!) === "hit";
        if (round > 0) {
          runs++;
          if (hit) hits++;
        }
      }
    }
    // Sampled eviction keeps some hits where exact LRU keeps none.
    expect(hits / runs).toBeGreaterThan(0.3);
    expect(hits / runs).toBeLessThan(1);
  });
});
