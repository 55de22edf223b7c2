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
