import net from "node:net";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { corkedSocket } from "@/db/corked-socket";
import { databaseUrl } from "@/db/url";

/** System calls a socket made to send: one per _write, one per _writev (a corked or backed-up batch). */
function countSends(socket: net.Socket): { sends: number } {
  const counter = { sends: 0 };
  const s = socket as unknown as { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  const write = s._write.bind(socket);
  const writev = s._writev.bind(socket);
  s._write = (...a) => {
    counter.sends++;
    write(...a);
  };
  s._writev = (...a) => {
    counter.sends++;
    writev(...a);
  };
  return counter;
}

/** postgres.js takes a `socket` function; its types do not declare it. */
type CorkedOptions = postgres.Options<Record<string, postgres.PostgresType>>;

const clients: postgres.Sql[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end({ timeout: 1 })));
});

/** Sends made while three statements with 2 KiB parameters are pipelined in one transaction, as a group commit does. */
async function sendsForPipelinedBatch(corked: boolean): Promise<number> {
  const counters: { sends: number }[] = [];
  const open = corked ? corkedSocket : (o: Parameters<typeof corkedSocket>[0]) => net.connect(o.port[0]!, o.host[0]!);
  const make = (o: Parameters<typeof corkedSocket>[0]) => {
    const socket = open(o);
    counters.push(countSends(socket));
    return socket;
  };
  const client = postgres(databaseUrl(), { max: 1, socket: make, onnotice: () => {} } as CorkedOptions);
  clients.push(client);
  const big = "x".repeat(2048);
  // Prepared once first, so the measured batch is what a warm pool sends: Bind + Execute each.
  await client.begin((tx) =>
    [1, 2, 3].map((n) => tx.unsafe("SELECT length($1::text) + $2::int AS n", [big, n], { prepare: true })),
  );
  const before = counters[0]!.sends;
  let during = 0;
  const rows = await client.begin(async (tx) => {
    const start = counters[0]!.sends;
    const pending = [1, 2, 3].map((n) =>
      tx.unsafe("SELECT length($1::text) + $2::int AS n", [big, n], { prepare: true }),
    );
    const out = await Promise.all(pending);
    during = counters[0]!.sends - start;
    return out;
  });
  expect(rows.map((r) => r[0]!.n)).toEqual([2049, 2050, 2051]);
  expect(counters[0]!.sends).toBeGreaterThan(before);
  return during;
}

describe("the corked database socket (db/corked-socket.ts)", () => {
  it("sends a pipelined batch of large statements in one write, where postgres.js's own socket makes one per statement", async () => {
    expect(await sendsForPipelinedBatch(false)).toBe(3);
    expect(await sendsForPipelinedBatch(true)).toBe(1);
  });

  it("connects, answers and reconnects after the server closes the connection", async () => {
    const client = postgres(databaseUrl(), { max: 1, socket: corkedSocket, onnotice: () => {} } as CorkedOptions);
    clients.push(client);
    const [{ pid }] = (await client`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
    const other = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    clients.push(other);
    await other`SELECT pg_terminate_backend(${pid})`;
    // The server closed the connection: the next query goes out on a new corked socket.
    await new Promise((r) => setTimeout(r, 200));
    const [{ ok }] = (await client`SELECT 1 AS ok`) as unknown as [{ ok: number }];
    expect(ok).toBe(1);
  });

  it("fails with the connection error when nothing listens on the port", async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const client = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      max: 1,
      connect_timeout: 2,
      socket: corkedSocket,
      onnotice: () => {},
    } as CorkedOptions);
    clients.push(client);
    await expect(client`SELECT 1`).rejects.toThrow(/ECONNREFUSED/);
  });

  it("names the server's address in postgres.js's own connection errors (a connect timeout)", async () => {
    // Accepts the connection and never answers the startup message.
    const held: net.Socket[] = [];
    const silent = net.createServer((s) => held.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const { port } = silent.address() as net.AddressInfo;
    const client = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      max: 1,
      connect_timeout: 0.2,
      socket: corkedSocket,
      onnotice: () => {},
    } as CorkedOptions);
    clients.push(client);
    try {
      await expect(client`SELECT 1`).rejects.toThrow(`write CONNECT_TIMEOUT 127.0.0.1:${port}`);
    } finally {
      held.forEach((s) => s.destroy());
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
