import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it, vi } from "vitest";
import { renderSql } from "./render-sql";
import { runs, threads } from "./schema";

const drizzleRendering = (query: SQL) => {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return { sql: text, params };
};
/** Whether renderSql handed the statement to drizzle. */
function renderedByDrizzle(query: SQL): boolean {
  const spy = vi.spyOn(PgDialect.prototype, "sqlToQuery");
  try {
    renderSql(query);
    return spy.mock.calls.length > 0;
  } finally {
    spy.mockRestore();
  }
}

/** Statements as the hot path builds them: nested templates, casts, lists, JSON text, nulls. */
const templates: Record<string, SQL> = {
  "nested CTEs with casts": (() => {
    const head = sql`rec AS (INSERT INTO t (a, b) VALUES (${"x"}, ${3}::int) RETURNING a)`;
    const cond = sql`EXISTS (SELECT 1 FROM rec)`;
    return sql`WITH ${head}, c AS (SELECT ${null}::jsonb AS j WHERE ${cond}) SELECT ${sql`(SELECT count(*) FROM rec)::int AS stored`}`;
  })(),
  "a list, a date, an object and a boolean": sql`SELECT * FROM t WHERE id IN ${["a", "b", sql`${"c"}::text`]} AND at < ${new Date(0)} AND j = ${{ k: [1, 2] }} AND f = ${false}`,
  "undefined leaves nothing": sql`SELECT 1${undefined} AS one`,
  "sql.join and sql.raw": sql`SELECT ${sql.join([sql`${1}`, sql.raw("2"), sql`${"3"}::int`], sql`, `)}`,
  "text with dollar signs and question marks": sql`SELECT '$1?' AS s, ${"$2"} AS p`,
  "a param whose encoder maps to SQL": sql`SELECT ${sql.param(5, { mapToDriverValue: (v: number) => sql`${v} + ${1}` })}`,
  "an object with a key named constructor": sql`SELECT ${{ constructor: "x" }}::jsonb`,
};

/** Statements drizzle must render itself: tables, columns, identifiers, inlined parameters. */
const entities: Record<string, SQL> = {
  "a table and a column": sql`SELECT ${runs.id} FROM ${runs} WHERE ${runs.companyId} = ${"co_1"}`,
  "query-builder conditions": sql`SELECT 1 WHERE ${and(eq(threads.id, "th_1"), inArray(threads.companyId, ["a", "b"]))}`,
  "an identifier": sql`SELECT 1 AS ${sql.identifier("one")}`,
  "inlined parameters": sql`SELECT ${"x"}, ${sql`${"y"}`.inlineParams()}`,
  "a placeholder": sql`SELECT ${sql.placeholder("p")}`,
};

describe("renderSql", () => {
  it.each(Object.entries(templates))("renders %s as drizzle does, in one pass", (_name, query) => {
    const { sql: text, params } = renderSql(query);
    expect({ sql: text, params }).toEqual(drizzleRendering(query));
    expect(renderedByDrizzle(query)).toBe(false);
  });

  it.each(Object.entries(entities))("leaves %s to drizzle", (_name, query) => {
    expect(renderedByDrizzle(query)).toBe(true);
  });

  it("renders a statement whose parameter's encoder renders another one", () => {
    const inner = (v: number) => renderSql(sql`inner ${v} ${"w"}`).sql;
    const query = sql`SELECT ${sql.param(5, { mapToDriverValue: inner })}, ${"after"}`;
    expect(renderSql(query)).toEqual({ sql: "SELECT $1, $2", params: ["inner $1 $2", "after"] });
    expect(renderSql(sql`SELECT ${1}`)).toEqual({ sql: "SELECT $1", params: [1] });
  });

  it("numbers parameters in order across nested templates", () => {
    const { sql: text, params } = renderSql(sql`a ${1} ${sql`b ${2} ${sql`c ${3}`}`} ${[4, 5]} ${6}`);
    expect(text).toBe("a $1 b $2 c $3 ($4, $5) $6");
    expect(params).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
