import fs from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { withinDeadline } from "./deadline";

/** Keeps the event loop busy for `ms`, as a saturated or descheduled process is. */
function block(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe("withinDeadline", () => {
  it("rejects a promise that has not settled by the deadline", async () => {
    const never = new Promise<never>(() => {});
    await expect(withinDeadline(never, 20, "too slow")).rejects.toThrow("too slow");
  });

  it("passes a value or a rejection on", async () => {
    await expect(withinDeadline(Promise.resolve(7), 20, "x")).resolves.toBe(7);
    await expect(withinDeadline(Promise.reject(new Error("store said no")), 20, "x")).rejects.toThrow("store said no");
  });

  it("does not time out an answer that arrived while the event loop was blocked past the deadline", async () => {
    // From the check phase (setImmediate): the stat (one I/O round, like a store's reply) completes
    // while the loop is blocked, and the next turn runs the overdue timer before that I/O, so a
    // plain timeout would reject the answer that is already there.
    const { guarded } = await new Promise<{ guarded: Promise<unknown> }>((resolve) =>
      setImmediate(() => {
        const guarded = withinDeadline(fs.stat(import.meta.filename), 20, "too slow");
        block(200);
        resolve({ guarded });
      }),
    );
    await expect(guarded).resolves.toHaveProperty("size");
  });
});
