import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dedupeServerChunks } from "./dedupe-chunks.mjs";

const chunk = (name: string, body: string) => `${body}\n\n//# sourceMappingURL=${name}.map\n`;

describe("dedupeServerChunks", () => {
  it("loads a chunk written under two names once, and leaves distinct chunks and other files alone", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "dedupe-chunks-"));
    const chunks = path.join(root, "chunks");
    fs.mkdirSync(path.join(chunks, "ssr"), { recursive: true });
    const same = "globalThis.__dedupeLoads = (globalThis.__dedupeLoads ?? 0) + 1; module.exports = [1, () => 'a'];";
    fs.writeFileSync(path.join(chunks, "_a._.js"), chunk("_a._.js", same));
    fs.writeFileSync(path.join(chunks, "ssr", "_b._.js"), chunk("_b._.js", same));
    fs.writeFileSync(path.join(chunks, "_c._.js"), chunk("_c._.js", "module.exports = [2, () => 'c'];"));
    fs.writeFileSync(path.join(root, "outside.js"), chunk("outside.js", same));
    const load = createRequire(path.join(root, "index.js"));
    const g = globalThis as { __dedupeLoads?: number };
    try {
      dedupeServerChunks(chunks);
      dedupeServerChunks(chunks);
      const a = load("./chunks/_a._.js");
      const b = load("./chunks/ssr/_b._.js");
      expect(b).toBe(a);
      expect(g.__dedupeLoads).toBe(1);
      expect(load("./chunks/_c._.js")).toEqual([2, expect.any(Function)]);
      load("./outside.js");
      expect(g.__dedupeLoads).toBe(2);
    } finally {
      delete g.__dedupeLoads;
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
