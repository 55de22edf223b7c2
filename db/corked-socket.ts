import net from "node:net";

/** What postgres.js hands a custom `socket` function: its parsed options (hosts and ports as lists). */
interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * A socket for postgres.js whose writes within one tick leave in one system call. postgres.js
 * writes messages of 1 KiB or more at once, so a pipelined batch went out write by write; corked
 * until the tick ends, they leave together.
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

// Only for a single-host URL: postgres.js tries several hosts in turn only with its own sockets.
export function corkedSocketOption(url: string): { socket?: typeof corkedSocket } {
  const hosts = /^[a-z]+:\/\/(?:[^@/]*@)?([^/?]*)/i.exec(url)?.[1] ?? "";
  return hosts.includes(",") ? {} : { socket: corkedSocket };
}
