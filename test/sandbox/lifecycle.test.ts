import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { describe, expect, it } from "vitest";
import { sleep } from "./pool";

describe("sandbox processes die with the server", () => {
  it("SIGKILL of the server ends its idle and its busy sandbox processes", async () => {
    const host = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=react-server", path.join(import.meta.dirname, "orphan-host.ts")],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: host.stdout! }).once("line", resolve);
        host.once("exit", (code) => reject(new Error(`orphan host exited with ${code}`)));
      });
      const { idle, busy } = JSON.parse(line) as { idle: number[]; busy: number[] };
      const pids = [...idle, ...busy];
      expect(idle).toHaveLength(1);
      expect(busy).toHaveLength(1);
      for (const pid of pids) expect(fs.existsSync(`/proc/${pid}`)).toBe(true);
      host.kill("SIGKILL");
      const deadline = Date.now() + 5000;
      while (pids.some((pid) => fs.existsSync(`/proc/${pid}`)) && Date.now() < deadline) await sleep(100);
      expect(pids.filter((pid) => fs.existsSync(`/proc/${pid}`))).toEqual([]);
    } finally {
      host.kill("SIGKILL");
    }
  });
});

describe("outer layers", () => {
  it("a sandbox process runs as the unprivileged uid, in its own cgroups, in its own network namespace, where the host allows it", async () => {
    const { runTool } = await import("@/lib/sandbox");
    const { testPool } = await import("./pool");
    const pool = testPool({ size: 1 });
    try {
      expect(
        await runTool({ companyId: "co_layers", name: "f", code: "def f():\n    return 1\n", args: {} }, pool),
      ).toMatchObject({ ok: true });
      const [pid] = pool.pidsOf("co_layers");
      const { layers } = pool;
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      if (layers.uid !== null)
        expect(status).toMatch(
          new RegExp(`^Uid:\\s+${layers.uid}\\s+${layers.uid}\\s+${layers.uid}\\s+${layers.uid}$`, "m"),
        );
      const cgroups = fs.readFileSync(`/proc/${pid}/cgroup`, "utf8");
      if (layers.cgroups.memory) expect(cgroups).toMatch(new RegExp(`:memory:.*/cockpit-sandbox-${pid}$`, "m"));
      if (layers.cgroups.pids) expect(cgroups).toMatch(new RegExp(`:pids:.*/cockpit-sandbox-${pid}$`, "m"));
      if (layers.cgroups.cpu) {
        // One core's quota (the test pool's cpuQuotaPercent 100): threads beyond it cannot take a second core.
        const line = cgroups
          .split("\n")
          .find(
            (l) =>
              l.split(":")[1]?.split(",").includes("cpu") || (layers.cgroups.cpu!.version === 2 && l.startsWith("0::")),
          );
        expect(line).toMatch(new RegExp(`/cockpit-sandbox-${pid}$`));
        const dir = `${layers.cgroups.cpu.dir}/cockpit-sandbox-${pid}`;
        if (layers.cgroups.cpu.version === 1) {
          expect(fs.readFileSync(`${dir}/cpu.cfs_quota_us`, "utf8").trim()).toBe("100000");
          expect(fs.readFileSync(`${dir}/cpu.cfs_period_us`, "utf8").trim()).toBe("100000");
        } else {
          expect(fs.readFileSync(`${dir}/cpu.max`, "utf8").trim()).toBe("100000 100000");
        }
      }
      // Root with a writable cpu controller (as on our machines): the cpu cgroup must be on.
      if (process.getuid?.() === 0 && fs.existsSync("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"))
        expect(layers.cgroups.cpu).toBeTruthy();
      if (layers.netns) expect(fs.readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(fs.readlinkSync("/proc/self/ns/net"));
      // Which layers this host gave (docs/security.md lists the layers).
      process.stdout.write(`sandbox layers: ${JSON.stringify(layers)}\n`);
    } finally {
      await pool.close();
    }
  });
});
