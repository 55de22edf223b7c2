import net from "node:net";

/** What postgres.js hands a custom `socket` function: its parsed options (hosts and ports as lists). */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * A socket for postgres.js whose writes within one tick leave in one system call.
 *
 * postgres.js writes a message of 1 KiB or more the moment it is built, and gathers smaller ones
 * until setImmediate. A group commit's batch (lib/persistence/group-commit.ts) pipelines its
 * statements in one tick, and a run's statement (its steps and messages as JSON) is larger than
 * 1 KiB: each went out in a write of its own. Corked for the rest of the tick, they leave together,
 * at the end of the tick that wrote them (no timer, no added wait). The kernel's cost of a write to
 * loopback is mostly per call, not per byte.
 */
export function corkedSocket(options: SocketOptions): net.Socket {
  const host = options.host[0] ?? "localhost";
  const port = options.port[0] ?? 5432;
  const socket = options.path ? net.connect(options.path) : net.connect(port, host);
  // As postgres.js labels its own sockets: its connection errors name the address from them.
  Object.assign(socket, { host, port });
  const write = socket.write;
  const uncork = () => socket.uncork();
  socket.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
    if (this.writableCorked === 0) {
      this.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as net.Socket["write"];
  return socket;
}

/**
 * postgres.js's `socket` option for a URL with one host (it tries several hosts in turn only with
 * its own sockets): a connection URL listing several keeps the default.
 */
export function corkedSocketOption(url: string): { socket?: typeof corkedSocket } {
  const hosts = /^[a-z]+:\/\/(?:[^@/]*@)?([^/?]*)/i.exec(url)?.[1] ?? "";
  return hosts.includes(",") ? {} : { socket: corkedSocket };
}
