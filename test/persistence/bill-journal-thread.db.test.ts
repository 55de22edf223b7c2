import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The journal lives under DATA_DIR: a directory of this test's own.
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "journal-thread-"));
const { adoptJobsThreadJournal, journalFileOf, recoverJournals, registerJournalWriter } =
  await import("@/lib/persistence/bill-journal");

const written: unknown[] = [];
registerJournalWriter<{ n: number }>("test-entry", async (payload) => {
  written.push(payload);
});

function writeThreadJournal(lines: string[]): string {
  const file = journalFileOf(true);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
  return file;
}

describe("a predecessor's journal under this process's own name", () => {
  it("is adopted by the first recovery pass: a container's restarted server gets the pid of the one it replaces", async () => {
    written.length = 0;
    const file = journalFileOf(false);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      [{ n: 7 }, { n: 8 }]
        .map((payload, i) => `${JSON.stringify({ kind: "test-entry", id: `p${i}`, payload })}\n`)
        .join(""),
    );
    // And its jobs thread's, which the new thread would otherwise append to and empty.
    writeThreadJournal([JSON.stringify({ kind: "test-entry", id: "t0", payload: { n: 9 } })]);
    expect(await recoverJournals()).toBe(3);
    await expect
      .poll(() => [...written].sort((a, b) => (a as { n: number }).n - (b as { n: number }).n), { timeout: 5_000 })
      .toEqual([{ n: 7 }, { n: 8 }, { n: 9 }]);
    // Later passes leave this process's own file alone.
    expect(await recoverJournals()).toBe(0);
  });
});

describe("the jobs thread's bill journal", () => {
  it("is its own file, left alone by the recovery of dead processes' journals while this process lives", async () => {
    expect(journalFileOf(true)).not.toBe(journalFileOf(false));
    const file = writeThreadJournal([JSON.stringify({ kind: "test-entry", id: "a", payload: { n: 1 } })]);
    expect(await recoverJournals()).toBe(0);
    expect(fs.existsSync(file)).toBe(true);
    fs.rmSync(file);
  });

  it("is adopted by the main thread once the thread ended: every whole entry is written, the file removed", async () => {
    written.length = 0;
    const file = writeThreadJournal([
      JSON.stringify({ kind: "test-entry", id: "a", payload: { n: 1 } }),
      JSON.stringify({ kind: "test-entry", id: "b", payload: { n: 2 } }),
      '{"kind":"test-entry","id":"c","pay', // cut by the thread's end: never acknowledged
    ]);
    expect(await adoptJobsThreadJournal()).toBe(2);
    expect(fs.existsSync(file)).toBe(false);
    await expect.poll(() => written, { timeout: 5_000 }).toEqual([{ n: 1 }, { n: 2 }]);
    // Nothing left to adopt the second time.
    expect(await adoptJobsThreadJournal()).toBe(0);
  });
});
