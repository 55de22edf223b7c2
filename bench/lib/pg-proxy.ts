/**
 * A counting TCP proxy in front of PostgreSQL, for "how many database round trips does one request
 * cost": point the server's DATABASE_URL at it and it forwards bytes untouched while decoding the
 * client side of the wire protocol (v3):
 *
 *   syncs      Sync ('S') + simple Query ('Q') messages: each is one wait for the server
 *              (ReadyForQuery), i.e. one round trip unless pipelined behind another
 *   writes     client socket writes reaching the proxy: pipelined messages share one
 *   statements Bind ('B') + simple Query, by SQL text (named prepared statements are mapped back
 *              to the text of their Parse)
 *   waitMs     sum over syncs of the time until the server's ReadyForQuery ('Z')
 *   busyMs     wall time during which at least one sync was outstanding on any connection: at one
 *              client connection, the time a request spends waiting for the database
 *
 * It adds a hop of latency: use it in profiling runs, not in the measured benchmark.
 */
import net from "node:net";

export interface PgStats {
  connections: number;
  writes: number;
  syncs: number;
  statements: number;
  byStatement: Record<string, number>;
  waitMs: number;
  busyMs: number;
  /** Wait (sync → ReadyForQuery) summed by the SQL text of the statement the sync closed. */
  waitMsByStatement: Record<string, number>;
}

export interface PgProxy {
  port: number;
  /** `url` with host:port replaced by the proxy. */
  rewrite(url: string): string;
  stats(): PgStats;
  reset(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

const normalize = (q: string) => q.replace(/\s+/g, " ").trim().slice(0, 160);

export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const empty = (connections: number): PgStats => ({
    connections,
    writes: 0,
    syncs: 0,
    statements: 0,
    byStatement: {},
    waitMs: 0,
    busyMs: 0,
    waitMsByStatement: {},
  });
  let stats = empty(0);
  let outstanding = 0;
  let busySince = 0;
  const syncSent = (pending: { at: number; sql: string }[], sql: string) => {
    const now = performance.now();
    pending.push({ at: now, sql });
    if (outstanding++ === 0) busySince = now;
  };
  const readyReceived = (pending: { at: number; sql: string }[]) => {
    const sent = pending.shift();
    if (sent === undefined) return; // start-up ReadyForQuery
    const now = performance.now();
    stats.waitMs += now - sent.at;
    stats.waitMsByStatement[sent.sql] = (stats.waitMsByStatement[sent.sql] ?? 0) + (now - sent.at);
    if (--outstanding === 0) stats.busyMs += now - busySince;
  };
  const sockets = new Set<net.Socket>();

  const count = (q: string): string => {
    stats.statements++;
    const k = normalize(q);
    stats.byStatement[k] = (stats.byStatement[k] ?? 0) + 1;
    return k;
  };

  const server = net.createServer((client) => {
    stats.connections++;
    const upstream = net.connect(target);
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
    const pending: { at: number; sql: string }[] = [];
    let lastSql = "";
    let sslAnswerDue = false;
    let sbuf: Buffer = Buffer.alloc(0);
    upstream.on("data", (d: Buffer) => {
      if (!client.write(d)) upstream.pause();
      sbuf = sbuf.length ? Buffer.concat([sbuf, d]) : d;
      if (sslAnswerDue && sbuf.length > 0) {
        sslAnswerDue = false;
        sbuf = sbuf.subarray(1);
      }
      while (sbuf.length >= 5) {
        const len = sbuf.readInt32BE(1);
        if (sbuf.length < 1 + len) break;
        if (sbuf[0] === 0x5a /* Z */) readyReceived(pending);
        sbuf = sbuf.subarray(1 + len);
      }
    });
    const release = () => {
      // A connection that closes with syncs outstanding must not keep the busy clock running.
      while (pending.length) readyReceived(pending);
    };
    upstream.on("close", release);
    client.on("drain", () => upstream.resume());
    upstream.on("drain", () => client.resume());

    let started = false;
    let buf: Buffer = Buffer.alloc(0);
    const statementsByName = new Map<string, string>();
    client.on("data", (d: Buffer) => {
      stats.writes++;
      if (!upstream.write(d)) client.pause();
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        if (!started) {
          if (buf.length < 8) break;
          const len = buf.readInt32BE(0);
          if (buf.length < len) break;
          const code = buf.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) started = true;
          else sslAnswerDue = true;
          buf = buf.subarray(len);
          continue;
        }
        if (buf.length < 5) break;
        const type = String.fromCharCode(buf[0]!);
        const len = buf.readInt32BE(1);
        if (buf.length < 1 + len) break;
        const body = buf.subarray(5, 1 + len);
        if (type === "P") {
          const nameEnd = body.indexOf(0);
          const queryEnd = body.indexOf(0, nameEnd + 1);
          statementsByName.set(body.toString("utf8", 0, nameEnd), body.toString("utf8", nameEnd + 1, queryEnd));
        } else if (type === "B") {
          const portalEnd = body.indexOf(0);
          const stmtEnd = body.indexOf(0, portalEnd + 1);
          lastSql = count(
            statementsByName.get(body.toString("utf8", portalEnd + 1, stmtEnd)) ?? "(unknown prepared statement)",
          );
        } else if (type === "Q") {
          stats.syncs++;
          syncSent(pending, count(body.toString("utf8", 0, Math.max(0, body.indexOf(0)))));
        } else if (type === "S") {
          stats.syncs++;
          syncSent(pending, lastSql);
        }
        buf = buf.subarray(1 + len);
      }
      if (buf.length === 0) buf = Buffer.alloc(0);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    rewrite(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    stats: () => ({
      ...stats,
      byStatement: { ...stats.byStatement },
      waitMsByStatement: { ...stats.waitMsByStatement },
    }),
    reset() {
      stats = empty(stats.connections);
      if (outstanding > 0) busySince = performance.now();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
