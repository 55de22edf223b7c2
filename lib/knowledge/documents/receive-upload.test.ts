import { describe, expect, it } from "vitest";
import { cleanFolderPath } from "./receive-upload";

describe("cleanFolderPath", () => {
  it("normalises separators, trims segments, drops empty, '.' and '..'", () => {
    expect(cleanFolderPath(" a//b/ ")).toBe("a/b");
    expect(cleanFolderPath("\\\\share\\docs\\2025")).toBe("share/docs/2025");
    expect(cleanFolderPath("../../etc/./x")).toBe("etc/x");
    expect(cleanFolderPath("  /  ")).toBeNull();
  });
  it("refuses control characters and overlong paths (400 naming folder_path)", () => {
    expect(() => cleanFolderPath("a\u0000b")).toThrow(/folder_path/);
    expect(() => cleanFolderPath("x".repeat(501))).toThrow(/folder_path/);
  });
});
