import { describe, expect, it } from "vitest";
import * as unknownPath from "@/app/v1/[...path]/route";
import * as me from "@/app/v1/me/route";
import * as health from "@/app/api/health/route";
import { callRoute } from "../support/call-route";

describe("wire conventions", () => {
  it("unknown /v1 paths are 404 in the OpenAI body, before auth", async () => {
    for (const method of ["GET", "POST", "DELETE"] as const) {
      const res = await callRoute(unknownPath[method], { method, path: "/v1/nothing/here" });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ type: "not_found_error", code: "unknown_url", param: null });
      expect(res.headers.get("x-request-id")).toBeTruthy();
    }
  });

  it("wrong methods are 405 in the same body, with Allow", async () => {
    const res = await callRoute(me.DELETE, { method: "DELETE", path: "/v1/me" });
    expect(res.status).toBe(405);
    expect(res.json.error.type).toBe("invalid_request_error");
    expect(res.headers.get("allow")).toBe("GET, OPTIONS");
  });

  it("answers CORS preflight for any origin with Authorization and Content-Type", async () => {
    const req = new Request("http://localhost/v1/me", {
      method: "OPTIONS",
      headers: {
        origin: "https://example.org",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    const res = await me.OPTIONS(req, { params: Promise.resolve({}) });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
    expect(res.headers.get("access-control-allow-methods")).toContain("GET");
  });

  it("echoes a caller's x-request-id and rejects unsafe ones", async () => {
    const mine = await callRoute(me.GET, { headers: { "x-request-id": "trace-123" } });
    expect(mine.headers.get("x-request-id")).toBe("trace-123");
    const evil = await callRoute(me.GET, { headers: { "x-request-id": "x y;z".repeat(30) } });
    expect(evil.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("the bare health route answers without auth", async () => {
    const res = await health.GET();
    expect(res.status).toBe(200);
  });
});
