import net from "node:net";

/**
 * A TCP proxy for fault injection (Shopify Toxiproxy's technique): a test cuts a shared dependency
 * for one app only.
 *
 *  - `pause()`   blackhole: nothing is forwarded either way and new connections are accepted but
 *                not connected through (what a partitioned network looks like: calls hang);
 *  - `resume()`  forwards again, held connections included;
 *  - `reset()`   closes every open connection with a TCP RST (a restarted server: 57P01, ECONNRESET);
 *  - `disable()` reset, then refuse new connections at once until `enable()` (a server that is down);
 *  - `loseReplyAfter(match)` the next matching client chunk goes through, its reply does not: the
 *                connection is cut without forwarding it (a lost acknowledgement). With
 *                `{ commit: true }` (PostgreSQL) the chunk only arms the connection, and the reply
 *                to the next COMMIT inside the transaction is the one lost.
 */
export interface TcpProxy {
  port: number;
  url: (target: string) => string;
  pause: () => void;
  resume: () => void;
  reset: () => void;
  disable: () => void;
  enable: () => void;
  loseReplyAfter: (match: (chunk: Buffer) => boolean, opts?: { commit?: boolean }) => Promise<void>;
  /** Connections currently open through the proxy. */
  connections: () => number;
  close: () => Promise<void>;
}

interface Pair {
  armed?: boolean;
  inTransaction?: boolean;
  client: net.Socket;
  upstream?: net.Socket;
  connect: () => void;
}

export interface TcpProxyOptions {
  /**
   * TCP_NODELAY on both legs, as postgres.js and ioredis set it: with Nagle, PostgreSQL's small
   * replies wait for the peer's delayed ACK and throughput collapses. `false` only to study what
   * Nagle does.
   */
  noDelay?: boolean;
}

export async function startTcpProxy(
  targetHost: string,
  targetPort: number,
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const noDelay = options.noDelay !== false;
  const pairs = new Set<Pair>();
  let paused = false;
  let disabled = false;
  let lose: { match: (chunk: Buffer) => boolean; commit: boolean; done: () => void } | undefined;
  /** PostgreSQL's ReadyForQuery message: 'Z', length 5, then the transaction status. */
  const READY = Buffer.from([0x5a, 0, 0, 0, 5]);
  const readyStatus = (chunk: Buffer): string | undefined => {
    const at = chunk.lastIndexOf(READY);
    return at >= 0 && at + 5 < chunk.length ? String.fromCharCode(chunk[at + 5]!) : undefined;
  };

  const destroy = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.resetAndDestroy();
    pair.upstream?.resetAndDestroy();
  };

  const server = net.createServer({ noDelay }, (client) => {
    if (disabled) {
      client.resetAndDestroy();
      return;
    }
    client.on("error", () => {});
    const pair: Pair = {
      client,
      connect: () => {
        const upstream = net.connect({ port: targetPort, host: targetHost, noDelay });
        pair.upstream = upstream;
        upstream.on("error", () => destroy(pair));
        // The dependency closed the connection itself (PostgreSQL after 57P01): pass its last
        // bytes and the orderly close on, as a direct connection would see them.
        let upstreamEnded = false;
        upstream.on("end", () => {
          upstreamEnded = true;
          pairs.delete(pair);
          client.end();
        });
        let swallowing = false;
        const cut = () => {
          const { done } = lose!;
          lose = undefined;
          swallowing = true;
          setTimeout(() => {
            destroy(pair);
            done();
          }, 200);
        };
        client.on("data", (chunk: Buffer) => {
          // Written to a connection the dependency already closed: a reset, as the kernel would answer.
          if (upstreamEnded) return destroy(pair);
          upstream.write(chunk);
          if (!lose) return;
          if (pair.armed && pair.inTransaction && chunk.length < 128) cut();
          else if (!pair.armed && lose.match(chunk)) {
            if (lose.commit) pair.armed = true;
            else cut();
          }
        });
        upstream.on("data", (chunk: Buffer) => {
          if (pair.armed && !swallowing) {
            const status = readyStatus(chunk);
            if (status === "T") pair.inTransaction = true;
            else if (status === "I" && !pair.inTransaction) pair.armed = false; // it committed alone
          }
          if (!swallowing) client.write(chunk);
        });
        if (paused) {
          client.pause();
          upstream.pause();
        }
      },
    };
    pairs.add(pair);
    client.on("close", () => destroy(pair));
    if (paused) client.pause();
    else pair.connect();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;

  const reset = () => {
    for (const pair of [...pairs]) destroy(pair);
  };
  return {
    port,
    url: (target) => {
      const u = new URL(target);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    pause: () => {
      paused = true;
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    resume: () => {
      paused = false;
      for (const pair of pairs) {
        if (!pair.upstream) pair.connect();
        pair.client.resume();
        pair.upstream?.resume();
      }
    },
    reset,
    disable: () => {
      disabled = true;
      reset();
    },
    enable: () => {
      disabled = false;
    },
    loseReplyAfter: (match, opts) =>
      new Promise<void>((done) => (lose = { match, commit: opts?.commit === true, done })),
    connections: () => pairs.size,
    close: () =>
      new Promise<void>((resolve) => {
        reset();
        server.close(() => resolve());
      }),
  };
}
