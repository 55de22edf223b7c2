/**
 * `next build` for `npm start`'s first run: its ~170 lines would bury what the operator must read,
 * so they are kept, summarised as one progress line while it runs and a short summary after, and
 * printed in full only when the build fails.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Build phases worth naming, matched against next build's own lines. */
const PHASES: [RegExp, string][] = [
  [/Creating an optimized production build/i, "compiling"],
  [/Compiled successfully|Compiled with warnings/i, "compiled"],
  [/Running TypeScript|Linting and checking/i, "checking types"],
  [/Collecting page data/i, "collecting page data"],
  [/Generating static pages/i, "generating static pages"],
  [/Finalizing page optimization/i, "finalising"],
];

const ROUTE_LINE = /^[┌├└]\s+([○●ƒλ◐])\s+\//u;

export interface BuildSummary {
  routes: number;
  dynamic: number;
  prerendered: number;
  warnings: number;
}

/** Where the build's full output is kept once it succeeded (inside .next, so a rebuild replaces it). */
const BUILD_LOG = path.join(".next", "build-output.log");

/** Counts the route table's rows: ƒ renders on demand, ○ ● ◐ are (partly) prerendered. */
export function summariseBuild(output: string): BuildSummary {
  let dynamic = 0;
  let prerendered = 0;
  for (const line of output.split("\n")) {
    const m = ROUTE_LINE.exec(line.trim());
    if (!m) continue;
    if (m[1] === "ƒ" || m[1] === "λ") dynamic++;
    else prerendered++;
  }
  const warnings = Number(/encountered (\d+) warnings?/.exec(output)?.[1] ?? 0);
  return { routes: dynamic + prerendered, dynamic, prerendered, warnings };
}

/** The phase named by the latest line that names one, else null. */
export function phaseOf(line: string): string | null {
  for (const [re, name] of PHASES) if (re.test(line)) return name;
  return null;
}

const seconds = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
};

/**
 * Runs `node <nextBin> build`; progress and summary go to `out` (a TTY gets one line rewritten in
 * place, anything else a line per phase). Throws when the build fails, after printing its output.
 */
export function runQuietBuild(args: {
  nextBin: string;
  env: NodeJS.ProcessEnv;
  out?: NodeJS.WriteStream;
}): Promise<BuildSummary> {
  const out = args.out ?? process.stdout;
  const started = Date.now();
  const chunks: string[] = [];
  let phase = "starting";
  let pending = "";
  const tty = out.isTTY === true;
  const show = () => {
    const text = `  Building the app (first run only, a few minutes): ${phase}, ${seconds(Date.now() - started)}`;
    if (tty) out.write(`\r\x1b[2K${text}`);
  };
  if (!tty) out.write("  Building the app (first run only, a few minutes)...\n");
  const ticker = tty ? setInterval(show, 1000) : undefined;
  show();
  const child = spawn(process.execPath, [args.nextBin, "build"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...args.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  const onData = (data: Buffer) => {
    const text = data.toString("utf8");
    chunks.push(text);
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const next = phaseOf(line);
      if (next && next !== phase) {
        phase = next;
        if (tty) show();
        else out.write(`    ${phase} (${seconds(Date.now() - started)})\n`);
      }
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (ticker) clearInterval(ticker);
      if (tty) out.write("\r\x1b[2K");
      const output = chunks.join("");
      if (code !== 0) {
        out.write(`${output}\n`);
        reject(new Error(`next build failed (${signal ?? `exit code ${code}`}); its output is above`));
        return;
      }
      const summary = summariseBuild(output);
      fs.writeFileSync(BUILD_LOG, output);
      const warned = summary.warnings > 0 ? `, ${summary.warnings} warning(s)` : "";
      out.write(
        `  Built the app in ${seconds(Date.now() - started)}: ${summary.routes} routes ` +
          `(${summary.dynamic} rendered on demand, ${summary.prerendered} prerendered${warned}; ` +
          `full output in ${BUILD_LOG}). Later starts reuse it.\n`,
      );
      resolve(summary);
    });
  });
}
