/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4,
 * https://prometheus.io/docs/instrumenting/exposition_formats/), for tests that scrape /metrics.
 * It refuses what Prometheus would: a malformed line, a sample of an undeclared family or with a
 * suffix its type does not allow, a series given twice, a histogram whose buckets are not
 * cumulative or whose `+Inf` bucket differs from its `_count`.
 */

export interface Sample {
  labels: Record<string, string>;
  /** A counter's or gauge's value. */
  value?: number;
  /** A histogram's cumulative bucket counts by upper bound (`le`), its count and sum. */
  buckets?: Record<string, number>;
  count?: number;
  sum?: number;
}

export interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  samples: Sample[];
}

export type Scrape = Map<string, Family>;

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const META = new RegExp(`^# (HELP|TYPE) (${NAME})(?: (.*))?$`);
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels: ${line}`);
    if (m[1]! in labels) throw new Error(`label given twice: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    if (m[3] === "" && LABEL.lastIndex < text.length) throw new Error(`bad labels: ${line}`);
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const n = Number(text);
  if (text === "" || Number.isNaN(n)) throw new Error(`bad value: ${line}`);
  return n;
}

/** Parses an exposition; throws on anything Prometheus would refuse (see above). */
export function parsePrometheusText(text: string): Scrape {
  const families: Scrape = new Map();
  const seen = new Set<string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const m = META.exec(line);
      if (!m) continue; // a plain comment
      const [, kind, name, rest = ""] = m;
      const family = families.get(name!) ?? { name: name!, help: "", type: "untyped" as const, samples: [] };
      families.set(name!, family);
      if (kind === "HELP") family.help = rest;
      else {
        if (!TYPES.has(rest)) throw new Error(`bad type: ${line}`);
        if (family.samples.length) throw new Error(`TYPE after samples: ${line}`);
        family.type = rest as Family["type"];
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, labelText = "", valueText] = m;
    const labels = parseLabels(labelText, line);
    const value = parseValue(valueText!, line);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`series given twice: ${line}`);
    seen.add(series);
    const suffix = /_(bucket|count|sum)$/.exec(name!);
    const base = suffix ? name!.slice(0, -suffix[0].length) : name!;
    const family = families.get(base)?.type === "histogram" ? families.get(base)! : families.get(name!);
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    if (family.type !== "histogram") {
      family.samples.push({ labels, value });
      continue;
    }
    if (!suffix) throw new Error(`histogram sample without a suffix: ${line}`);
    const { le, ...own } = labels;
    const key = JSON.stringify(Object.entries(own).sort());
    let sample = family.samples.find((s) => JSON.stringify(Object.entries(s.labels).sort()) === key);
    if (!sample) family.samples.push((sample = { labels: own, buckets: {} }));
    if (suffix[1] === "bucket") {
      if (le === undefined) throw new Error(`bucket without le: ${line}`);
      sample.buckets![le] = value;
    } else if (suffix[1] === "count") sample.count = value;
    else sample.sum = value;
  }
  for (const f of families.values()) {
    if (f.type !== "histogram") continue;
    for (const s of f.samples) {
      const bounds = Object.keys(s.buckets ?? {}).sort((a, b) => parseValue(a, a) - parseValue(b, b));
      const counts = bounds.map((b) => s.buckets![b]!);
      if (bounds.at(-1) !== "+Inf") throw new Error(`${f.name}: no +Inf bucket`);
      if (counts.some((c, i) => i > 0 && c < counts[i - 1]!)) throw new Error(`${f.name}: buckets not cumulative`);
      if (s.count !== counts.at(-1)) throw new Error(`${f.name}: +Inf bucket differs from _count`);
      if (s.sum === undefined) throw new Error(`${f.name}: no _sum`);
    }
  }
  return families;
}

/** GET /metrics at `base` (http://host:port), parsed; throws unless 200 with the text format. */
export async function scrape(base: string): Promise<Scrape> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`scrape: ${res.status}`);
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("text/plain; version=0.0.4")) throw new Error(`scrape: content-type ${type}`);
  return parsePrometheusText(await res.text());
}

/** The samples of `family` whose labels include `labels`. */
export function samples(s: Scrape, family: string, labels: Record<string, string> = {}): Sample[] {
  const f = s.get(family);
  if (!f) throw new Error(`no family ${family}`);
  return f.samples.filter((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
}

/** Sum of a counter's or gauge's values (or of a histogram's counts) over the samples matching `labels`. */
export function total(s: Scrape, family: string, labels: Record<string, string> = {}): number {
  return samples(s, family, labels).reduce((n, m) => n + (m.value ?? m.count ?? 0), 0);
}

/** Every label value in the scrape (to look for ids). */
export function labelValues(s: Scrape): string[] {
  return [...s.values()].flatMap((f) => f.samples.flatMap((m) => Object.values(m.labels)));
}
