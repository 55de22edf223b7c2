import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { logRequest } from "./log-request";

const req = new Request("http://localhost/v1/chat/completions?key=secret", { method: "POST" });

afterEach(() => vi.restoreAllMocks());

/** Which level logRequest wrote at, with the logger at `level`. */
function levelFor(level: string, status: number, tookMs: number): string | null {
  vi.spyOn(log, "isLevelEnabled").mockImplementation((l) => log.levels.values[l]! >= log.levels.values[level]!);
  const calls: string[] = [];
  for (const l of ["debug", "info", "warn"] as const)
    vi.spyOn(log, l).mockImplementation(((..._args: unknown[]) => void calls.push(l)) as never);
  logRequest(req, status, performance.now() - tookMs, "req_1", "co_1");
  return calls[0] ?? null;
}

describe("request logs", () => {
  it("at info: nothing for a fast 2xx or 4xx", () => {
    expect(levelFor("info", 200, 5)).toBeNull();
    expect(levelFor("info", 404, 5)).toBeNull();
  });

  it("at info: a 5xx as a warning and a slow call as info", () => {
    expect(levelFor("info", 502, 5)).toBe("warn");
    expect(levelFor("info", 200, env.LOG_SLOW_REQUEST_MS + 50)).toBe("info");
  });

  it("at debug: every request", () => {
    expect(levelFor("debug", 200, 5)).toBe("debug");
  });

  it("logs the path without the query string", () => {
    const spy = vi.spyOn(log, "warn").mockImplementation((() => {}) as never);
    vi.spyOn(log, "isLevelEnabled").mockReturnValue(true);
    logRequest(req, 500, performance.now(), "req_1", undefined);
    expect(spy.mock.calls[0]![0]).toMatchObject({ path: "/v1/chat/completions", status: 500 });
  });
});
