import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { hasScope, requireScope, requireSubset, SCOPE } from "./scopes";

describe("scopes", () => {
  it("matches only granted scopes", () => {
    expect(hasScope([SCOPE.chat], SCOPE.chat)).toBe(true);
    expect(hasScope([SCOPE.chat], SCOPE.admin)).toBe(false);
    expect(hasScope([], SCOPE.view)).toBe(false);
  });

  it("requireScope throws a 403 AppError naming the scope", () => {
    expect(() => requireScope([SCOPE.view], SCOPE.chat)).toThrowError(AppError);
    try {
      requireScope([SCOPE.view], SCOPE.chat);
    } catch (err) {
      expect((err as AppError).status).toBe(403);
      expect((err as AppError).message).toContain("'chat'");
    }
    expect(() => requireScope([SCOPE.chat, SCOPE.view], SCOPE.view)).not.toThrow();
  });

  it("requireSubset refuses escalation", () => {
    expect(() => requireSubset([SCOPE.chat, SCOPE.admin], [SCOPE.chat])).not.toThrow();
    expect(() => requireSubset([SCOPE.admin], [SCOPE.admin, SCOPE.action])).toThrowError(/action/);
  });
});
