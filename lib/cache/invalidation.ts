import "server-only";
import { sql as dsql } from "@/db/sql";
import { sql } from "@/db/client";
import type { DbOrTx } from "@/db/types";
import { log } from "@/lib/log";

/**
 * Cross-process cache invalidation over LISTEN/NOTIFY (payload `<topic>:<id>`). Caches must not
 * serve while `isLive()` is false; each (re)connect fires `onReset`, since notifications may have
 * been missed.
 */
const CHANNEL = "cockpit_invalidate";
type Handler = (id: string) => void;

const handlers = new Map<string, Handler[]>();
const resets: (() => void)[] = [];
let live = false;
let started = false;

function start(): void {
  if (started) return;
  started = true;
  sql
    .listen(
      CHANNEL,
      (payload) => {
        const i = payload.indexOf(":");
        const topic = payload.slice(0, i);
        for (const h of handlers.get(topic) ?? []) h(payload.slice(i + 1));
      },
      () => {
        for (const r of resets) r();
        live = true;
      },
    )
    .catch((err: unknown) => {
      started = false;
      live = false;
      log.warn({ err }, "cache invalidation listener failed; caches bypassed");
    });
}

/** Registers a cache; returns a liveness check to call before serving from it. */
export function registerCache(topic: string, onInvalidate: Handler, onReset: () => void): () => boolean {
  const list = handlers.get(topic) ?? [];
  list.push(onInvalidate);
  handlers.set(topic, list);
  resets.push(onReset);
  return () => {
    start();
    return live;
  };
}

/** Invalidates `topic:id` here now and in every other process (when `conn`'s transaction commits). */
export async function publishInvalidation(conn: DbOrTx, topic: string, id: string): Promise<void> {
  for (const h of handlers.get(topic) ?? []) h(id);
  await conn.execute(dsql`select pg_notify(${CHANNEL}, ${`${topic}:${id}`})`);
}
