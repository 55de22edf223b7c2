import type postgres from "postgres";

type Sql = postgres.Sql;
type Unsafe = Sql["unsafe"];

/**
 * Makes drizzle's parameterised queries named prepared statements: drizzle otherwise sends
 * `prepare: false`, costing two round trips and a fresh parse and plan per query. postgres.js
 * caches them per connection by text, bounded as our texts come from code. Queries without
 * parameters keep the simple protocol (they may hold several statements).
 */
export function preparedByDefault(client: Sql): Sql {
  const patch = (c: Sql) => {
    const unsafe = c.unsafe.bind(c) as Unsafe;
    (c as { unsafe: Unsafe }).unsafe = ((query: string, args?: unknown[], options?: Record<string, unknown>) =>
      args && args.length > 0
        ? unsafe(query, args as never, { ...options, prepare: true })
        : unsafe(query, args as never, options as never)) as Unsafe;
    return c;
  };
  patch(client);
  const begin = client.begin.bind(client) as (...a: unknown[]) => Promise<unknown>;
  // Transactions get their own client object from postgres.js: patch it too.
  (client as { begin: unknown }).begin = (...a: unknown[]) => {
    const fn = a.at(-1) as (tx: Sql) => unknown;
    return begin(...a.slice(0, -1), (tx: Sql) => fn(patch(tx)));
  };
  return client;
}
