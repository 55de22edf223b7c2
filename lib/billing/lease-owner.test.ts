import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  currentLeaseOwner,
  formatLeaseOwner,
  leaseOwnerGone,
  parseLeaseOwner,
  processAlive,
  type LeaseOwner,
} from "./lease-owner";

const me: LeaseOwner = {
  host: "web-1",
  pidSpace: "boot-a.4026531836",
  pid: 100,
  startTime: "5000",
  instance: "127.0.0.1:3000:0",
  boot: "BootMe",
};
const other = (o: Partial<LeaseOwner>): LeaseOwner => ({ ...me, pid: 200, startTime: "6000", boot: "BootOld", ...o });
const alive = () => true;
const dead = () => false;

describe("lease owners", () => {
  it("format and parse round-trip; anything else parses to null", () => {
    const o = other({ instance: ":::8080:3" });
    expect(parseLeaseOwner(formatLeaseOwner(o))).toEqual(o);
    expect(parseLeaseOwner(formatLeaseOwner(other({ pidSpace: "", startTime: "", instance: "" })))).toMatchObject({
      pidSpace: "",
      startTime: "",
      instance: "",
    });
    for (const bad of ["", "worker-7", "a/b/c/d", "h/s/x.1/i/b", "h/s/1.2/i/", "/s/1.2/i/b", "h/s/1.2/i/b/extra"])
      expect(parseLeaseOwner(bad)).toBeNull();
  });

  it("this process: its pid and start time, and a pid space on Linux", () => {
    const self = currentLeaseOwner();
    expect(self.pid).toBe(process.pid);
    expect(currentLeaseOwner().boot).toBe(self.boot);
    if (process.platform === "linux") {
      expect(self.pidSpace).toMatch(/^[0-9a-f-]{36}\.\d+$/);
      expect(processAlive(process.pid, self.startTime)).toBe(true);
      // The same pid started at another time is another process: the owner is gone.
      expect(processAlive(process.pid, String(Number(self.startTime) + 1))).toBe(false);
    }
  });

  it("a process that has exited is not alive", () => {
    const { pid } = spawnSync(process.execPath, ["-e", ""]);
    expect(processAlive(pid!, "")).toBe(false);
  });

  it("never judges itself gone", () => {
    expect(leaseOwnerGone({ ...me }, me, dead)).toBe(false);
  });

  it("same pid space: gone exactly when the kernel says the pid is not alive", () => {
    expect(leaseOwnerGone(other({}), me, alive)).toBe(false);
    expect(leaseOwnerGone(other({}), me, dead)).toBe(true);
    // Our own pid from an earlier boot: that process ended before we started.
    expect(leaseOwnerGone(other({ pid: me.pid }), me, alive)).toBe(true);
    // The host name does not matter there: containers sharing the host's pid namespace.
    expect(leaseOwnerGone(other({ host: "sidecar" }), me, dead)).toBe(true);
  });

  it("another pid space: gone only when it is the instance we now listen on, under our host name", () => {
    const container = (o: Partial<LeaseOwner>) => other({ pidSpace: "boot-a.4026532000", ...o });
    // A restarted container: same host name and address/port/slot, new pid namespace.
    expect(leaseOwnerGone(container({}), me, alive)).toBe(true);
    expect(leaseOwnerGone(container({ pid: me.pid }), me, alive)).toBe(true);
    // Another replica, slot, port or host: may be alive, so never.
    expect(leaseOwnerGone(container({ instance: "127.0.0.1:3000:1" }), me, dead)).toBe(false);
    expect(leaseOwnerGone(container({ instance: "127.0.0.1:3001:0" }), me, dead)).toBe(false);
    expect(leaseOwnerGone(container({ host: "web-2" }), me, dead)).toBe(false);
    expect(leaseOwnerGone(container({ instance: "" }), { ...me, instance: "" }, dead)).toBe(false);
    // Not listening yet (or not a server): no instance to claim.
    expect(leaseOwnerGone(container({}), { ...me, instance: "" }, dead)).toBe(false);
    // A pid space we cannot read (not Linux): nothing is judged by pid, only by the instance.
    expect(leaseOwnerGone(other({ pidSpace: "", instance: "127.0.0.1:3001:0" }), { ...me, pidSpace: "" }, dead)).toBe(
      false,
    );
    expect(leaseOwnerGone(other({ pidSpace: "" }), { ...me, pidSpace: "" }, alive)).toBe(true);
  });
});
