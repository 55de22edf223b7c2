import { describe, expect, it } from "vitest";
import { phaseOf, summariseBuild } from "./quiet-build";

const OUTPUT = `▲ Next.js 16.4.6 (Turbopack)
  Creating an optimized production build ...
✓ Compiled successfully in 81s
  Running TypeScript ...
  Collecting page data using 1 worker ...
✓ Generating static pages using 1 worker (48/48) in 1267ms
Turbopack build encountered 1 warnings:
./lib/x.ts:1:1
Warning: something
  Finalizing page optimization ...

Route (app)
┌ ○ /
├ ○ /_not-found
├ ƒ /agents
├ ƒ /api/auth/[...nextauth]
└ ƒ /v1/usage


ƒ Proxy (Middleware)

○  (Static)   prerendered as static content
ƒ  (Dynamic)  server-rendered on demand
`;

describe("npm start's quiet next build", () => {
  it("counts the route table's rows by kind, and nothing else", () => {
    expect(summariseBuild(OUTPUT)).toEqual({ routes: 5, dynamic: 3, prerendered: 2, warnings: 1 });
  });

  it("names the phase a line starts", () => {
    expect(OUTPUT.split("\n").map(phaseOf).filter(Boolean)).toEqual([
      "compiling",
      "compiled",
      "checking types",
      "collecting page data",
      "generating static pages",
      "finalising",
    ]);
    expect(phaseOf("Route (app)")).toBeNull();
  });
});
