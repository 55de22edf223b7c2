import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { describe, expect, it } from "vitest";
import { sleep } from "./pool";

describe("sandbox processes die with the server", () => {
  it("SIGKILL of the server ends its idle and its busy sandbox processes", async () => {
    const host = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", path.join(import.meta.dirname, "orphan-host.ts")], {
      stdio: ["ignore", "pipe", "inherit"],
    });
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
      expect(await runTool({ companyId: "co_layers", name: "f", code: "def f():\n    return 1\n", args: {} }, pool)).toMatchObject({ ok: true });
      const [pid] = pool.pidsOf("co_layers");
      const { layers } = pool;
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      if (layers.uid !== null) expect(status).toMatch(new RegExp(`^Uid:\\s+${layers.uid}\\s+${layers.uid}\\s+${layers.uid}\\s+${layers.uid}$`, "m"));
      const cgroups = fs.readFileSync(`/proc/${pid}/cgroup`, "utf8");
      if (layers.cgroups.memory) expect(cgroups).toMatch(new RegExp(`:memory:.*/cockpit-sandbox-${pid}$`, "m"));
      if (layers.cgroups.pids) expect(cgroups).toMatch(new RegExp(`:pids:.*/cockpit-sandbox-${pid}$`, "m"));
      if (layers.netns) expect(fs.readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(fs.readlinkSync("/proc/self/ns/net"));
      // Which layers this host gave (the README records the ones active on our machines and CI).
      process.stdout.write(`sandbox layers: ${JSON.stringify(layers)}\n`);
    } finally {
      await pool.close();
    }
  });
});
