/**
 * A regression guard: each goal of the latest bench results beside the same goal of the results
 * saved before them, so a change to the hot path reports its delta.
 *
 *   npm run bench:compare [-- --bench completions,scaling] [--against REV]
 *
 * "Latest" is bench/results/<bench>-latest.json as it is in the checkout; "previous" is that file
 * at REV, else its newest committed version that differs from the checkout's (the run before a
 * result just committed). Benchmark history lives in git, not in a folder of old results.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { compareVerdicts, type Verdict } from "./lib/compare-verdicts";
import { ROOT } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const { values: flags } = parseArgs({
  options: {
    bench: { type: "string", default: "completions,scaling" },
    against: { type: "string" },
  },
  strict: true,
});

const git = (args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 256 << 20 });

/** The file at `rev`, or null where it did not exist. */
function showAt(rev: string, file: string): string | null {
  try {
    return git(["show", `${rev}:${file}`]);
  } catch {
    return null;
  }
}

/** The saved result to compare with, and the commit it is from. */
function previousOf(file: string, latest: string): { text: string; rev: string } | null {
  if (flags.against) {
    const text = showAt(flags.against, file);
    return text === null ? null : { text, rev: flags.against };
  }
  for (const rev of git(["log", "--format=%h", "--", file]).split("\n").filter(Boolean)) {
    const text = showAt(rev, file);
    if (text !== null && text !== latest) return { text, rev };
  }
  return null;
}

const verdictsOf = (text: string) => ((JSON.parse(text) as { verdicts?: Verdict[] }).verdicts ?? []) as Verdict[];

function compareBench(bench: string): void {
  const file = `bench/results/${bench}-latest.json`;
  const abs = path.join(ROOT, file);
  if (!fs.existsSync(abs)) return void process.stdout.write(`${bench}: no ${file}\n\n`);
  const latest = fs.readFileSync(abs, "utf8");
  const previous = previousOf(file, latest);
  const rows = compareVerdicts(previous ? verdictsOf(previous.text) : [], verdictsOf(latest));
  const value = (v: number | null, unit: string) => (v === null ? "–" : `${fmt(v, 2)} ${unit}`.trim());
  process.stdout.write(
    `${bench}: ${file} against ${previous ? `its version in ${previous.rev}` : "nothing saved before it"}\n` +
      `${renderTable(
        ["goal", "previous", "latest", "delta", "target", "result"],
        rows.map((r) => [
          r.goal,
          value(r.previous, r.unit),
          value(r.latest, r.unit),
          r.previous === null || r.latest === null
            ? "–"
            : `${r.latest - r.previous >= 0 ? "+" : ""}${fmt(r.latest - r.previous, 2)}`,
          r.target,
          r.result,
        ]),
        { leftColumns: 1 },
      )}\n\n`,
  );
}

for (const bench of flags.bench!.split(",").filter(Boolean)) compareBench(bench);
