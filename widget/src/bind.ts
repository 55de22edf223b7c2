/**
 * Values (widget/VOCABULARY.md "Values"): a literal, or a `$`-binding naming a dotted path in a
 * scope (`$data`, `$row`, `$card`, `$column`); `$$x` is the literal `$x`. An unresolved path is
 * `undefined`.
 */
export type Scope = Record<string, unknown>;

export function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const key of path.split(".")) {
    if (key === "") continue;
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

export function resolve(value: unknown, scope: Scope): unknown {
  if (typeof value !== "string" || value[0] !== "$") return value;
  if (value[1] === "$") return value.slice(1);
  const path = value.slice(1);
  const dot = path.indexOf(".");
  const head = dot < 0 ? path : path.slice(0, dot);
  if (!(head in scope)) return undefined;
  return dot < 0 ? scope[head] : getPath(scope[head], path.slice(dot + 1));
}

/** Resolves every value of an object (a button's `input`, a board's `move.input`); unresolved ones are omitted. */
export function resolveObject(obj: unknown, scope: Scope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (obj && typeof obj === "object") {
    for (const [k, v] of Object.entries(obj)) {
      const r = resolve(v, scope);
      if (r !== undefined) out[k] = r;
    }
  }
  return out;
}

// Intl formatters are costly to create: one per currency, reused.
const numberFormat = new Intl.NumberFormat(undefined);
const moneyFormats = new Map<string, Intl.NumberFormat>();
const moneyFormat = (code: string) => {
  let f = moneyFormats.get(code);
  if (!f) moneyFormats.set(code, (f = new Intl.NumberFormat(undefined, { style: "currency", currency: code })));
  return f;
};

/** Text of a value in a format: `text` (default), `number`, `money` (with `currency`, default USD), `date`. */
export function formatValue(value: unknown, format?: unknown, currency?: unknown): string {
  if (value === undefined || value === null) return "";
  if (format === "number" || format === "money") {
    const n = typeof value === "number" ? value : Number(value);
    if (typeof value === "boolean" || value === "" || !Number.isFinite(n)) return String(value);
    if (format === "number") return numberFormat.format(n);
    const code = typeof currency === "string" && /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : "USD";
    return moneyFormat(code).format(n);
  }
  if (format === "date") {
    // ISO 8601 per the vocabulary; a number is Unix seconds, the gateway's time unit (CONTRACT 4).
    const d = typeof value === "number" ? new Date(value * 1000) : new Date(String(value));
    return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString();
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
