import { sql as drizzleSql, SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { renderSql } from "./render-sql";
import { runs } from "./schema";
import { sql } from "./sql";

const rendered = (query: SQL) => {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return { sql: text, params };
};

/** The same template through both tags (one call site each, as code writes them). */
const both = (tag: typeof sql, id: string) => {
  const inner = tag`EXISTS (SELECT 1 FROM rec WHERE id = ${id})`;
  return tag`WITH rec AS (SELECT ${id}::text AS id) SELECT ${inner} AS found, ${[1, 2]} AS list, ${null}::jsonb`;
};

describe("sql", () => {
  it("renders as drizzle's tag does, through drizzle and through renderSql", () => {
    const ours = both(sql, "run_1");
    const theirs = both(drizzleSql, "run_1");
    expect(ours).toBeInstanceOf(SQL);
    expect(rendered(ours)).toEqual(rendered(theirs));
    expect(renderSql(ours)).toEqual(rendered(theirs));
  });

  it("renders tables and columns as drizzle does", () => {
    const make = (tag: typeof sql) => tag`SELECT ${runs.id} FROM ${runs} WHERE ${runs.companyId} = ${"co_1"}`;
    expect(rendered(make(sql))).toEqual(rendered(make(drizzleSql)));
    const tables = (q: SQL) => (q as unknown as { usedTables: string[] }).usedTables;
    expect(tables(make(sql))).toEqual(tables(make(drizzleSql)));
    expect(tables(make(sql))).toEqual(["runs"]);
  });

  it("makes a template's text chunks once and shares them between calls", () => {
    const make = (id: string) => sql`SELECT ${id}`;
    const [a, b] = [make("a"), make("b")];
    expect(a.queryChunks[0]).toBe(b.queryChunks[0]);
    expect(a.queryChunks).not.toBe(b.queryChunks);
    expect(renderSql(b)).toEqual({ sql: "SELECT $1", params: ["b"] });
  });

  it("keeps drizzle's helpers and its empty template", () => {
    expect(rendered(sql`SELECT ${sql.join([sql.raw("1"), sql`${2}`], sql`, `)}`)).toEqual({
      sql: "SELECT 1, $1",
      params: [2],
    });
    expect(sql``.queryChunks).toEqual([]);
    expect(sql.empty().queryChunks).toEqual([]);
  });

  it("leaves shared chunks untouched when a statement is appended to", () => {
    const make = () => sql`SELECT 1`;
    const first = make().append(sql` UNION SELECT 2`);
    expect(rendered(first).sql).toBe("SELECT 1 UNION SELECT 2");
    expect(rendered(make()).sql).toBe("SELECT 1");
  });
});
