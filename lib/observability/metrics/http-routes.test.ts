import { describe, expect, it } from "vitest";
import { OTHER_ROUTE, routeMatcher } from "./http-routes.mjs";
import { metricsPort } from "./serve.mjs";

describe("routeMatcher", () => {
  const routeOf = routeMatcher([
    "/",
    "/v1/models",
    "/v1/models/[model]",
    "/v1/threads/[threadId]/runs",
    "/v1/threads/[threadId]/runs/[runId]/steps",
    "/v1/threads/bulk",
    "/v1/[...path]",
    "/api/auth/[...nextauth]",
    "/docs/[[...slug]]",
  ]);

  it("gives the pattern, never the ids in the path", () => {
    expect(routeOf("/v1/threads/thread_abc/runs")).toBe("/v1/threads/[threadId]/runs");
    expect(routeOf("/v1/threads/thread_abc/runs/run_x/steps")).toBe("/v1/threads/[threadId]/runs/[runId]/steps");
    expect(routeOf("/v1/models/gpt-4o-mini")).toBe("/v1/models/[model]");
  });

  it("prefers a literal segment to a parameter, and a parameter to a catch-all", () => {
    expect(routeOf("/v1/threads/bulk")).toBe("/v1/threads/bulk");
    expect(routeOf("/v1/models")).toBe("/v1/models");
    expect(routeOf("/v1/threads/thread_abc/messages")).toBe("/v1/[...path]");
    expect(routeOf("/api/auth/callback/github")).toBe("/api/auth/[...nextauth]");
  });

  it("matches optional catch-alls with and without segments, the root, and trailing slashes", () => {
    expect(routeOf("/docs")).toBe("/docs/[[...slug]]");
    expect(routeOf("/docs/a/b")).toBe("/docs/[[...slug]]");
    expect(routeOf("/")).toBe("/");
    expect(routeOf("/v1/models/")).toBe("/v1/models");
  });

  it("collapses unknown paths and Next.js's assets to one value each", () => {
    expect(routeOf("/nowhere/co_123")).toBe(OTHER_ROUTE);
    expect(routeOf("/api/other")).toBe(OTHER_ROUTE);
    expect(routeOf("/_next/static/chunks/abc.js")).toBe("/_next");
    expect(routeMatcher([])("/v1/models")).toBe(OTHER_ROUTE);
  });
});

describe("metricsPort", () => {
  it("defaults to 9464, takes 0 as off, and refuses anything but a port", () => {
    expect(metricsPort(undefined)).toBe(9464);
    expect(metricsPort(" ")).toBe(9464);
    expect(metricsPort("0")).toBe(0);
    expect(metricsPort("9100")).toBe(9100);
    for (const bad of ["-1", "65536", "1.5", "http"]) expect(() => metricsPort(bad)).toThrow(/METRICS_PORT/);
  });
});
