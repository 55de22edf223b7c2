import dns from "node:dns";
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from "node:dns";
import tls from "node:tls";
import { Agent, buildConnector } from "undici";
import { blockedReason } from "./ip-policy";

/**
 * An undici Agent for user-given URLs that reaches only public addresses. Our `lookup` checks every
 * answer and hands `net.connect` exactly those, so DNS rebinding cannot swap them; `remoteAddress`
 * is checked again (IP literals).
 */

export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refused address for ${host}: ${reason}`);
    this.name = "RefusedAddressError";
  }
}

type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface GuardOptions {
  /**
   * Test-only: exact `address:port` pairs (IPv6 bracketed) allowed although not public. Passed in
   * code, never read from a request or the environment; the same address on another port is still
   * refused.
   */
  allowAddresses?: readonly string[];
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots, e.g. a test server's. */
  ca?: string | Buffer;
  /** Name resolution; defaults to `dns.lookup` (the OS resolver, as `net.connect` would use). */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

const defaultResolve: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

const key = (address: string, port: number) => (address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`);

/** Null when the address may be connected to on that port, else why not. */
export function refusal(address: string, port: number, allow: ReadonlySet<string>): string | null {
  const why = blockedReason(address);
  if (why === null || allow.has(key(address.replace(/^\[|\]$/g, ""), port))) return null;
  return why;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function createGuardedAgent(opts: GuardOptions = {}): Agent {
  const allow = new Set(opts.allowAddresses ?? []);
  const resolve = opts.resolve ?? defaultResolve;
  const ca = opts.ca ? [...tls.rootCertificates, opts.ca.toString()] : undefined;

  // net.connect calls this with `all: true` when it races address families (Node's default),
  // else expects one address.
  const lookupFor =
    (port: number) => (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
      resolve(hostname).then(
        (answers) => {
          if (answers.length === 0)
            return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
          const family = (options as { family?: number | string }).family;
          const wanted = family === 4 || family === 6 ? answers.filter((a) => a.family === family) : answers;
          // One non-public answer refuses the name: a resolver mixing public and private answers is
          // probing us, and the address Node would pick is not ours to predict.
          for (const a of answers) {
            const why = refusal(a.address, port, allow);
            if (why) return callback(new RefusedAddressError(hostname, why), []);
          }
          if (wanted.length === 0)
            return callback(
              Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: "ENOTFOUND" }),
              [],
            );
          if ((options as LookupAllOptions).all) callback(null, wanted);
          else callback(null, wanted[0]!.address, wanted[0]!.family);
        },
        (err: NodeJS.ErrnoException) => callback(err, []),
      );
    };

  const connect: buildConnector.connector = (options, callback) => {
    const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
    // Passing `ca` replaces Node's roots, so a test CA is added to them rather than substituted.
    const base = buildConnector({
      timeout: opts.connectTimeoutMs ?? 10_000,
      ...(ca ? { ca } : {}),
      lookup: lookupFor(port),
    } as buildConnector.BuildOptions);
    const literal = options.hostname.replace(/^\[|\]$/g, "");
    // An IP-literal host is dialled without a lookup: refuse it before a packet is sent.
    if (blockedReason(literal) !== "not an IP address") {
      const why = refusal(literal, port, allow);
      if (why) return callback(new RefusedAddressError(literal, why), null);
    }
    return base(options, (err, socket) => {
      if (err || !socket) return callback(err, null);
      const remote = socket.remoteAddress;
      const why = remote ? refusal(remote, socket.remotePort ?? port, allow) : "no remote address";
      if (why) {
        socket.destroy();
        return callback(new RefusedAddressError(remote ?? options.hostname, why), null);
      }
      callback(null, socket);
    });
  };

  return new Agent({
    connect,
    headersTimeout: opts.headersTimeoutMs,
    bodyTimeout: opts.bodyTimeoutMs,
    connections: 1,
    pipelining: 0,
  });
}
