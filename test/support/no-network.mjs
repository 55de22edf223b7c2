// Preloaded (NODE_OPTIONS=--import) by runOcrOffline: any TCP connect, DNS lookup or fetch in the
// process or its worker threads throws and is reported on stderr. Unix-socket connects (tsx's IPC)
// are let through.
import dns from "node:dns";
import net from "node:net";
import { isMainThread } from "node:worker_threads";

const where = isMainThread ? "main" : "worker";
const attempt = (what) => {
  process.stderr.write(`NETWORK ATTEMPT ${what} in ${where}\n`);
  throw new Error(`network disabled (${what})`);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const a = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof a === "number" || (a && typeof a === "object" && a.port !== undefined)) attempt("connect");
  return connect.apply(this, args);
};
dns.lookup = () => attempt("dns.lookup");
dns.promises.lookup = () => attempt("dns.promises.lookup");
globalThis.fetch = () => attempt("fetch");
process.stderr.write(`no-net preload in ${where}\n`);
