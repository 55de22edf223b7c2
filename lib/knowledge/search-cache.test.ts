import { describe, expect, it } from "vitest";
import { parseTsvector } from "./search-cache";

describe("parseTsvector", () => {
  it("reads lexemes and their frequencies from PostgreSQL's text output, quotes and backslashes included", () => {
    const text = String.raw`'/destalling':109 'a''b':3,4A 'back\\slash':1 'flow':3,7,9 'mach':1 'x'`;
    expect([...parseTsvector(text)]).toEqual([
      ["/destalling", 1],
      ["a'b", 2],
      ["back\\slash", 1],
      ["flow", 3],
      ["mach", 1],
      ["x", 1],
    ]);
    expect(parseTsvector("").size).toBe(0);
  });
});
