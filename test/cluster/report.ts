import fs from "node:fs";
import path from "node:path";

/** What the cluster test prints: its checks (the `N passed, N failed` line counts them), tables and log excerpts. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}
export const checks: Check[] = [];

export function check(name: string, ok: boolean, detail: string): void {
  checks.push({ name, ok, detail });
  process.stdout.write(`${ok ? "✓" : "✗"} ${name}\n    ${detail.split("\n").join("\n    ")}\n`);
}

export const ot = (micro: number) => (micro / 1_000_000).toFixed(4);

export function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")).join("\n");
}

/** The apps' switches of rate-limit store, from their logs (plain processes only: containers log elsewhere). */
export function storeSwitches(logDir: string, at: (t: number) => string): string {
  if (!fs.existsSync(logDir)) return "rate-limit store switches: no logs here";
  const lines: string[] = [];
  for (const file of fs
    .readdirSync(logDir)
    .filter((f) => f.startsWith("app-"))
    .sort()) {
    for (const line of fs.readFileSync(path.join(logDir, file), "utf8").split("\n")) {
      if (!line.includes('"rate_limit_store"')) continue;
      const entry = JSON.parse(line) as { time: number; redis: string; err?: { message?: string } };
      lines.push(
        `${file.replace(".log", "")} ${entry.redis} at ${at(entry.time)}${entry.err ? ` (${entry.err.message})` : ""}`,
      );
    }
  }
  return `rate-limit store switches: ${lines.length ? lines.join("; ") : "none"}`;
}
