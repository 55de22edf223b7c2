import { describe, expect, it } from "vitest";
import { containsPattern } from "./like-pattern";

describe("containsPattern", () => {
  it("wraps the text in % wildcards", () => {
    expect(containsPattern("parcel")).toBe("%parcel%");
  });

  it("escapes the user's wildcards and the escape character itself", () => {
    expect(containsPattern("100%")).toBe("%100\\%%");
    expect(containsPattern("a_b")).toBe("%a\\_b%");
    expect(containsPattern("C:\\dir")).toBe("%C:\\\\dir%");
    expect(containsPattern("%_%")).toBe("%\\%\\_\\%%");
  });
});
