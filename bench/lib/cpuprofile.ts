/**
 * Summaries of a V8 .cpuprofile (node --cpu-prof): self time by package / file area and by
 * function, and inclusive ("total") time of chosen functions, so "where does a request's CPU go"
 * can be answered without opening DevTools.
 */
import fs from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  byArea: { area: string; selfMs: number; pct: number }[];
  byFunction: { fn: string; selfMs: number; pct: number }[];
  inclusive: { match: string; totalMs: number; pct: number }[];
}

/** Coarse bucket for a script URL: a package name, Next's runtime, the app bundle, node internals... */
function areaOf(url: string, fn: string): string {
  if (!url) {
    if (fn === "(garbage collector)") return "(gc)";
    if (fn === "(idle)" || fn === "(program)" || fn === "(root)") return fn;
    return "(native)";
  }
  if (url.startsWith("node:")) {
    const parts = url.slice(5).split("/");
    // node:internal/deps/undici/undici (fetch, Request/Response), node:internal/webstreams/..., node:events
    return `node:${parts[0] === "internal" ? parts.slice(1, parts[1] === "deps" ? 3 : 2).join("/") : parts[0]}`;
  }
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    const pkg = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
    if (pkg === "next") {
      const compiled = /dist\/compiled\/([^/]+)/.exec(url);
      return compiled ? `next (compiled/${compiled[1]})` : `next (${rest.slice(1, 3).join("/")})`;
    }
    return pkg;
  }
  if (url.includes("/.next/server/"))
    return `.next bundle (${url
      .slice(url.indexOf("/.next/server/") + 14)
      .split("/")
      .slice(0, 2)
      .join("/")})`;
  return url.replace(/^file:\/\//, "");
}

const maps = new Map<string, SourceMap | null>();

function mapFor(url: string): SourceMap | null {
  if (maps.has(url)) return maps.get(url)!;
  let map: SourceMap | null = null;
  try {
    const file = url.startsWith("file://") ? fileURLToPath(url) : url;
    if (file.includes("/.next/") && fs.existsSync(`${file}.map`)) {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, "utf8")));
    }
  } catch {
    map = null;
  }
  maps.set(url, map);
  return map;
}

export interface Frame {
  fn: string;
  /** Package name, or a project-relative source file for app code. */
  area: string;
  /** Original file:line when a source map resolved it, else the script URL. */
  where: string;
}

/**
 * Frames inside the .next bundles are mapped back through their source maps to the original file
 * (lib/…, db/…, or node_modules/<pkg>/… that Turbopack bundled), so minified code gets a name.
 */
export function resolveFrame(cf: CallFrame, root: string): Frame {
  const fn = cf.functionName || "(anonymous)";
  const map = cf.url ? mapFor(cf.url) : null;
  if (map) {
    const e = map.findEntry(cf.lineNumber, cf.columnNumber) as { originalSource?: string; originalLine?: number };
    if (e.originalSource) {
      const file = cf.url.startsWith("file://") ? fileURLToPath(cf.url) : cf.url;
      const src = decodeURIComponent(e.originalSource.replace(/^turbopack:\/\/\/\[project\]\//, ""));
      const abs = path.isAbsolute(src) ? src : path.resolve(path.dirname(file), src);
      const rel = path.relative(root, abs);
      const nm = rel.lastIndexOf("node_modules/");
      let area = rel;
      if (nm >= 0) {
        const parts = rel.slice(nm + 13).split("/");
        area = `${parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]} (bundled)`;
      }
      return { fn, area, where: `${rel}:${(e.originalLine ?? 0) + 1}` };
    }
  }
  const area = areaOf(cf.url, cf.functionName);
  return { fn, area, where: cf.url ? `${area}:${cf.lineNumber + 1}` : area };
}

/** Self time of a profile's samples by area, by function and under each inclusive pattern, in µs. */
export interface SelfTimes {
  /** Sampled non-idle CPU. */
  totalUs: number;
  area: Map<string, number>;
  fnSelf: Map<string, number>;
  incl: Map<string, number>;
}

/**
 * Reads a .cpuprofile and adds up the self time of the samples `keep` accepts (by their time
 * stamp in µs on the profile's clock; all of them by default). Inclusive patterns are counted once
 * per stack, matched against function name and location.
 */
export function aggregateProfile(
  file: string,
  opts: { inclusive?: string[]; root?: string } = {},
  keep?: (tUs: number) => boolean,
): SelfTimes {
  const root = opts.root ?? process.cwd();
  const prof = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of prof.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const frames = new Map<number, Frame>();
  const frameOf = (id: number): Frame => {
    let f = frames.get(id);
    if (!f) frames.set(id, (f = resolveFrame(byId.get(id)!.callFrame, root)));
    return f;
  };
  const selfUs = new Map<number, number>();
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] ?? 0;
    if (keep && !keep(t)) continue;
    const id = prof.samples[i]!;
    // timeDeltas[i] is the gap before sample i; attribute the gap after it (the next delta) to it.
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
  }
  const out: SelfTimes = { totalUs: 0, area: new Map(), fnSelf: new Map(), incl: new Map() };
  const patterns = opts.inclusive ?? [];
  for (const [id, us] of selfUs) {
    if (byId.get(id)!.callFrame.functionName === "(idle)") continue;
    out.totalUs += us;
    const f = frameOf(id);
    out.area.set(f.area, (out.area.get(f.area) ?? 0) + us);
    const key = `${f.fn} ${f.where}`;
    out.fnSelf.set(key, (out.fnSelf.get(key) ?? 0) + us);
    if (patterns.length) {
      const hit = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const cf = frameOf(cur);
        const label = `${cf.fn} ${cf.where} ${byId.get(cur)!.callFrame.url}`;
        for (const p of patterns) if (!hit.has(p) && label.includes(p)) hit.add(p);
      }
      for (const p of hit) out.incl.set(p, (out.incl.get(p) ?? 0) + us);
    }
  }
  return out;
}

/** Largest first. */
export const sortedDesc = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);

export function summarizeProfile(
  file: string,
  opts: { top?: number; inclusive?: string[]; root?: string } = {},
): ProfileSummary {
  const { totalUs, area, fnSelf, incl } = aggregateProfile(file, opts);
  const top = opts.top ?? 25;
  const ms = (us: number) => us / 1000;
  const pct = (us: number) => (totalUs ? (us / totalUs) * 100 : 0);
  return {
    file,
    totalMs: ms(totalUs),
    byArea: sortedDesc(area)
      .slice(0, top)
      .map(([k, v]) => ({ area: k, selfMs: ms(v), pct: pct(v) })),
    byFunction: sortedDesc(fnSelf)
      .slice(0, top)
      .map(([k, v]) => ({ fn: k, selfMs: ms(v), pct: pct(v) })),
    inclusive: (opts.inclusive ?? []).map((p) => ({
      match: p,
      totalMs: ms(incl.get(p) ?? 0),
      pct: pct(incl.get(p) ?? 0),
    })),
  };
}
