import fs from "node:fs";
import os from "node:os";
import { randomBase62 } from "@/lib/ids";
import { leaseOwner, serverInstance } from "@/lib/process-channels.mjs";

/**
 * Who holds a credit lease, written into `reservations.owner`, so that another process can tell
 * for certain that the holder is gone and give its credit back at once (a crashed server's leases
 * otherwise stay held until they expire, LEASE_TTL_S).
 *
 * `<hostname>/<pid space>/<pid>.<start time>/<instance>/<boot>`:
 * - pid space: the Linux boot id and PID namespace (`/proc/self/ns/pid`). Only a process in the
 *   same pid space can ask the kernel about the pid; in another container, or on another machine,
 *   the same number is another process.
 * - start time: the process's start in clock ticks since boot (`/proc/<pid>/stat`), so a pid the
 *   kernel has reused for an unrelated process does not keep a dead owner's leases "alive".
 * - instance: where the server listens (`address:port:cluster slot`, set by scripts/server/main.mjs
 *   once the port is bound; empty in other processes), the identity a restarted container keeps
 *   while its pid space is new.
 * - boot: random per process start; tells the process apart from every earlier one.
 */
export interface LeaseOwner {
  host: string;
  pidSpace: string;
  pid: number;
  startTime: string;
  instance: string;
  boot: string;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** Field 22 (starttime) and field 3 (state) of /proc/<pid>/stat; the command name before them may hold spaces and parentheses. */
function procStat(pid: number): { state: string; startTime: string } | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (!stat) return null;
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return rest.length > 19 ? { state: rest[0]!, startTime: rest[19]! } : null;
}

/** Empty when unknown (not Linux, or /proc unreadable): then no pid is ever judged from this process. */
function thisPidSpace(): string {
  if (process.platform !== "linux") return "";
  const bootId = readText("/proc/sys/kernel/random/boot_id")?.trim();
  let ns: string | null = null;
  try {
    ns = fs.readlinkSync("/proc/self/ns/pid").replace(/\D/g, "");
  } catch {
    ns = null;
  }
  return bootId && ns ? `${bootId}.${ns}` : "";
}

/** Shared by every bundle that loads this module: a second copy must not look like another process. */
function self(): LeaseOwner {
  const owner = leaseOwner.getOrInit(() => ({
    // The separator must not occur inside a field.
    host: os.hostname().replaceAll("/", "_"),
    pidSpace: thisPidSpace(),
    pid: process.pid,
    startTime: procStat(process.pid)?.startTime ?? "",
    instance: "",
    boot: randomBase62(12),
  }));
  // Published by scripts/server/main.mjs once it listens.
  const published = serverInstance.get();
  if (published && !owner.instance) owner.instance = `${published.address}:${published.port}:${published.slot}`;
  return owner;
}

/** This process as a lease owner (the instance appears once the server listens). */
export function currentLeaseOwner(): LeaseOwner {
  return self();
}

const formatted = new WeakMap<LeaseOwner, { instance: string; text: string }>();

/** Memoised per owner object (this process's is formatted on every run claim and credit hold). */
export function formatLeaseOwner(o: LeaseOwner): string {
  const hit = formatted.get(o);
  if (hit && hit.instance === o.instance) return hit.text;
  const text = [o.host, o.pidSpace, `${o.pid}.${o.startTime}`, o.instance.replaceAll("/", "_"), o.boot].join("/");
  formatted.set(o, { instance: o.instance, text });
  return text;
}

/**
 * null for anything not written by formatLeaseOwner (such rows are left to expire).
 * @internal
 */
export function parseLeaseOwner(text: string): LeaseOwner | null {
  const parts = text.split("/");
  if (parts.length !== 5) return null;
  const [host, pidSpace, pidPart, instance, boot] = parts as [string, string, string, string, string];
  const m = /^(\d+)\.(\d*)$/.exec(pidPart);
  if (!host || !boot || !m) return null;
  return { host, pidSpace, pid: Number(m[1]), startTime: m[2]!, instance, boot };
}

/**
 * Whether `pid` (started at `startTime`, "" if unknown) is still a live process in this pid space.
 * A zombie is gone (it holds nothing), and so is a pid now used by a process started at another time.
 * @internal
 */
export function processAlive(pid: number, startTime: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, only not ours to signal.
    return (err as NodeJS.ErrnoException).code !== "ESRCH";
  }
  const stat = procStat(pid);
  if (!stat) return true;
  if (stat.state === "Z") return false;
  return !startTime || stat.startTime === startTime;
}

/**
 * Whether the owner of a lease is certainly gone, seen from `me`. Never true for a process that
 * may still be running: when in doubt the lease is left to expire (LEASE_TTL_S).
 *
 * - Same pid space: the kernel knows (`alive`). The owner's pid being ours, from another boot,
 *   means it ended before we started.
 * - Another pid space, same host name and the same listening instance (address, port, cluster
 *   slot), and we listen there now: the process we replace (a restarted container keeps its host
 *   name but gets a new pid namespace). Two live servers cannot hold one address and port in one
 *   network namespace. This assumes two containers given the same host name never listen on the
 *   same address and port at once (each container's default host name is its own id).
 * @internal
 */
export function leaseOwnerGone(
  owner: LeaseOwner,
  me: LeaseOwner,
  alive: (pid: number, startTime: string) => boolean,
): boolean {
  if (owner.boot === me.boot) return false;
  if (me.pidSpace && owner.pidSpace === me.pidSpace) {
    if (owner.pid === me.pid) return true;
    return !alive(owner.pid, owner.startTime);
  }
  return owner.host === me.host && me.instance !== "" && owner.instance === me.instance;
}

/** The owners (as written by formatLeaseOwner) this process can tell are gone; unparseable ones are left alone. */
export function goneOwners(texts: string[]): string[] {
  const me = currentLeaseOwner();
  return texts.filter((text) => {
    const owner = parseLeaseOwner(text);
    return owner !== null && leaseOwnerGone(owner, me, processAlive);
  });
}
