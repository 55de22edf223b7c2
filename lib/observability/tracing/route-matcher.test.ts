import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeMatcher } from "./route-matcher.mjs";

function matcherFor(routes: string[]) {
  const dir = mkdtempSync(path.join(tmpdir(), "routes-"));
  mkdirSync(path.join(dir, ".next"));
  const manifest = Object.fromEntries(routes.map((r) => [`${r}/route`, r]));
  writeFileSync(path.join(dir, ".next/app-path-routes-manifest.json"), JSON.stringify(manifest));
  return routeMatcher(dir);
}

describe("routeMatcher", () => {
  const match = matcherFor([
    "/",
    "/v1/chat/completions",
    "/v1/threads/[threadId]",
    "/v1/threads/[threadId]/runs",
    "/v1/threads/[threadId]/runs/[runId]/steps",
    "/v1/threads/import",
    "/v1/[...path]",
    "/docs/[[...slug]]",
  ]);

  it("static before dynamic before catch-all, segment by segment", () => {
    expect(match("/")).toBe("/");
    expect(match("/v1/chat/completions")).toBe("/v1/chat/completions");
    expect(match("/v1/threads/import")).toBe("/v1/threads/import");
    expect(match("/v1/threads/thr_1")).toBe("/v1/threads/[threadId]");
    expect(match("/v1/threads/thr_1/runs")).toBe("/v1/threads/[threadId]/runs");
    expect(match("/v1/threads/thr_1/runs/run_2/steps")).toBe("/v1/threads/[threadId]/runs/[runId]/steps");
    expect(match("/v1/threads/thr_1/nope")).toBe("/v1/[...path]");
    expect(match("/docs")).toBe("/docs/[[...slug]]");
    expect(match("/docs/a/b")).toBe("/docs/[[...slug]]");
  });

  it("no pattern, no route", () => {
    expect(match("/elsewhere")).toBeUndefined();
    expect(match("/v1/threads//runs")).toBe("/v1/[...path]");
    expect(matcherFor([])("/v1/chat/completions")).toBeUndefined();
  });
});
