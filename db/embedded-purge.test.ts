import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { attachEmbeddedDatabase, describeEmbeddedDatabase, purgeEmbeddedDatabase } from "./embedded";

let tmp: string;
let fakePostmaster: ChildProcess | undefined;

/** A cluster directory as initdb leaves it, without a server: what purge must find and delete. */
function fakeCluster(): string {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cg-purge-"));
  const dataDir = path.join(tmp, "pg");
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(dataDir, "PG_VERSION"), "18\n");
  fs.writeFileSync(`${dataDir}.log`, "");
  return dataDir;
}

afterEach(() => {
  fakePostmaster?.kill("SIGKILL");
  fakePostmaster = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("purging the embedded database (npm run db:where -- --purge)", () => {
  it("removes a stopped, unused cluster and its log", async () => {
    const dataDir = fakeCluster();
    expect(describeEmbeddedDatabase({ dataDir })).toMatchObject({
      clusterDir: dataDir,
      initialised: true,
      running: null,
      users: [],
    });
    const removed = await purgeEmbeddedDatabase({ dataDir });
    expect(removed).toEqual(expect.arrayContaining([dataDir, `${dataDir}.log`]));
    expect(fs.existsSync(dataDir)).toBe(false);
    expect(fs.existsSync(`${dataDir}.log`)).toBe(false);
  });

  it("refuses while a project process uses it, and removes nothing", async () => {
    const dataDir = fakeCluster();
    const release = await attachEmbeddedDatabase({ dataDir });
    try {
      expect(describeEmbeddedDatabase({ dataDir }).users).toEqual([process.pid]);
      await expect(purgeEmbeddedDatabase({ dataDir })).rejects.toThrow(`used by pid ${process.pid}`);
      expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);
    } finally {
      await release();
    }
  });

  it("refuses while its postmaster runs, and removes nothing", async () => {
    const dataDir = fakeCluster();
    // A process whose name is `postgres`, recorded in postmaster.pid as a running server records itself.
    const bin = path.join(tmp, "postgres");
    fs.copyFileSync(fs.realpathSync("/bin/sleep"), bin);
    fs.chmodSync(bin, 0o755);
    fakePostmaster = spawn(bin, ["30"], { stdio: "ignore" });
    await new Promise((r) => fakePostmaster!.once("spawn", r));
    fs.writeFileSync(path.join(dataDir, "postmaster.pid"), `${fakePostmaster.pid}\n${dataDir}\n0\n54399\n`);
    expect(describeEmbeddedDatabase({ dataDir }).running).toEqual({ pid: fakePostmaster.pid, port: 54399 });
    await expect(purgeEmbeddedDatabase({ dataDir })).rejects.toThrow(`runs (postgres pid ${fakePostmaster.pid})`);
    expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true);
  });
});
