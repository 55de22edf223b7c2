import { entityKind, Param, SQL, StringChunk, type Query } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";

const dialect = new PgDialect();

interface Rendering {
  /** The text's pieces, joined once at the end (a flat string, not a rope of hundreds). */
  pieces: string[];
  params: unknown[];
}

/** The pieces array renderSql reuses (undefined while a render holds it). */
let spare: string[] | undefined = [];

/**
 * Renders a statement built of sql`` templates (text, parameters, nested templates, lists) to the
 * text and parameters drizzle's PgDialect gives, in one pass without drizzle's per-chunk objects:
 * the statements every call writes are built this way. Anything else (tables, columns,
 * placeholders, names, inlined parameters) is rendered by drizzle itself.
 */
export function renderSql(query: SQL): Query {
  // Rendering is synchronous: one pieces array serves every statement, unless a parameter's
  // encoder renders another statement meanwhile.
  const pieces = spare ?? [];
  spare = undefined;
  try {
    const out: Rendering = { pieces, params: [] };
    return appendChunk(query, out) ? { sql: pieces.join(""), params: out.params } : dialect.sqlToQuery(query);
  } finally {
    pieces.length = 0;
    spare = pieces;
  }
}

/**
 * A statement run as drizzle's `execute` runs it, on a postgres.js pool a drizzle database wraps
 * (or a transaction of one): drizzle sets the pool's parameter types, JSON sent as the text it is.
 */
export function runSql<Row>(client: Pick<postgres.Sql, "unsafe">, query: SQL): Promise<Row[]> {
  const { sql: text, params } = renderSql(query);
  return client.unsafe(text, params as postgres.ParameterOrJSON<never>[]) as unknown as Promise<Row[]>;
}

/** False when a chunk needs drizzle's own rendering. */
function appendChunks(chunks: readonly unknown[], out: Rendering): boolean {
  for (const chunk of chunks) if (!appendChunk(chunk, out)) return false;
  return true;
}

function appendChunk(chunk: unknown, out: Rendering): boolean {
  if (chunk === undefined) return true;
  if (chunk instanceof StringChunk) {
    for (const part of chunk.value) out.pieces.push(part);
    return true;
  }
  if (chunk instanceof SQL) return !inlinesParams(chunk) && appendChunks(chunk.queryChunks, out);
  if (Array.isArray(chunk)) return appendList(chunk, out);
  if (chunk instanceof Param) {
    if (isDrizzleEntity(chunk.value)) return false;
    const value = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
    return value instanceof SQL ? appendChunk(value, out) : appendParam(value, out);
  }
  return isDrizzleEntity(chunk) ? false : appendParam(chunk, out);
}

/** `sql.inlineParams()` (drizzle keeps the flag private). */
const inlinesParams = (query: SQL) => (query as unknown as { shouldInlineParams: boolean }).shouldInlineParams;

/** A JavaScript array in a template: its items in parentheses, comma-separated. */
function appendList(items: readonly unknown[], out: Rendering): boolean {
  out.pieces.push("(");
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.pieces.push(", ");
    if (!appendChunk(items[i], out)) return false;
  }
  out.pieces.push(")");
  return true;
}

function appendParam(value: unknown, out: Rendering): true {
  out.params.push(value);
  out.pieces.push(placeholder(out.params.length));
  return true;
}

/** `$1`, `$2`…, made once each up to a bound (a statement's parameters are far fewer). */
const placeholders: string[] = [];
const placeholder = (n: number) => (n < 1024 ? (placeholders[n] ??= `$${n}`) : `$${n}`);

/** Tables, columns, names, placeholders, subqueries, enums and other SQL wrappers. */
function isDrizzleEntity(chunk: unknown): boolean {
  if (typeof chunk === "function") return true;
  if (chunk === null || typeof chunk !== "object") return false;
  const type = (Object.getPrototypeOf(chunk) as { constructor?: unknown } | null)?.constructor;
  return (
    (typeof type === "function" && entityKind in type) || typeof (chunk as { getSQL?: unknown }).getSQL === "function"
  );
}
