import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTool } from "@/lib/sandbox";
import { testPool } from "./pool";

/**
 * A root server whose checkout the sandbox's uid cannot read (a 0700 home or temp folder) still
 * drops the uid: the runtime is copied to a root-owned, world-readable folder outside it.
 */
const isRoot = process.getuid?.() === 0;
const scratch: string[] = [];

/** A checkout under a 0700 folder: the same files, reached through symlinks the sandbox uid cannot traverse to. */
function hiddenCheckout(): string {
  const hidden = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-hidden-"));
  scratch.push(hidden);
  fs.chmodSync(hidden, 0o700);
  const checkout = path.join(hidden, "checkout");
  const link = (rel: string) => {
    fs.mkdirSync(path.dirname(path.join(checkout, rel)), { recursive: true });
    fs.symlinkSync(path.join(process.cwd(), rel), path.join(checkout, rel));
  };
  for (const rel of [
    "node_modules/@deno/linux-x64-glibc/deno",
    "node_modules/@deno/linux-x64-glibc/package.json",
    "node_modules/pyodide",
    "lib/sandbox/runner/runner.ts",
  ])
    link(rel);
  return checkout;
}

function baseDir(mode: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-runtime-"));
  scratch.push(dir);
  fs.chmodSync(dir, mode);
  return path.join(dir, "sandbox");
}

afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

describe.runIf(isRoot)("the sandbox's runtime as root", () => {
  it("a checkout in a 0700 folder is copied outside it, and the sandbox process runs as the unprivileged uid", async () => {
    const base = baseDir(0o755);
    const pool = testPool({ size: 1, checkoutDir: hiddenCheckout(), runtimeBaseDir: base });
    try {
      expect(pool.layers.off.uidDrop).toBeUndefined();
      expect(pool.layers.uid).toBe(65534);
      expect(pool.layers.runtime.copiedTo).toMatch(new RegExp(`^${base}/[0-9a-f]{32}$`));
      const copy = pool.layers.runtime.copiedTo!;
      for (const p of [
        copy,
        pool.layers.runtime.denoBin,
        pool.layers.runtime.runnerFile,
        path.join(pool.layers.runtime.pyodideDir, "pyodide.asm.wasm"),
      ]) {
        const st = fs.lstatSync(p);
        expect(st.uid).toBe(0);
        expect(st.mode & 0o022).toBe(0);
        expect(st.mode & 0o004).toBe(0o004);
      }
      const exec = await runTool(
        { companyId: "co_runtime", name: "f", code: "def f():\n    return 41 + 1\n", args: {} },
        pool,
      );
      expect(exec).toMatchObject({ ok: true, result: 42 });
      const [pid] = pool.pidsOf("co_runtime");
      expect(fs.readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(/^Uid:\s+65534\s+65534\s+65534\s+65534$/m);
      expect(fs.readlinkSync(`/proc/${pid}/exe`)).toBe(pool.layers.runtime.denoBin);
    } finally {
      await pool.close();
    }
  });

  it("says why the uid drop is off when the copy's folder is not root's alone, or the uid is -1", () => {
    const open = testPool({ checkoutDir: hiddenCheckout(), runtimeBaseDir: baseDir(0o777) });
    expect(open.layers.uid).toBeNull();
    expect(open.layers.off.uidDrop).toMatch(
      /unreadable to uid 65534 and copying the runtime to .* failed \(.*writable by a user other than root\)/,
    );
    const noDrop = testPool({ uid: -1, checkoutDir: hiddenCheckout(), runtimeBaseDir: baseDir(0o755) });
    expect(noDrop.layers.uid).toBeNull();
    expect(noDrop.layers.off.uidDrop).toMatch(/SANDBOX_UID or SANDBOX_GID is -1/);
  });
});
