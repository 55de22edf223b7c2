import { describe, expect, it } from "vitest";
import { porterStem } from "./porter";

describe("porterStem", () => {
  it("matches the reference implementation's output on Porter's examples", () => {
    const pairs: [string, string][] = [
      ["caresses", "caress"],
      ["ponies", "poni"],
      ["cats", "cat"],
      ["agreed", "agre"],
      ["plastered", "plaster"],
      ["motoring", "motor"],
      ["hopping", "hop"],
      ["falling", "fall"],
      ["filing", "file"],
      ["happy", "happi"],
      ["relational", "relat"],
      ["conditional", "condit"],
      ["digitizer", "digit"],
      ["vietnamization", "vietnam"],
      ["hopefulness", "hope"],
      ["formaliti", "formal"],
      ["electrical", "electr"],
      ["revival", "reviv"],
      ["adjustment", "adjust"],
      ["adoption", "adopt"],
      ["controll", "control"],
      ["generalizations", "gener"],
      ["aerodynamics", "aerodynam"],
      ["oscillators", "oscil"],
    ];
    for (const [w, s] of pairs) expect(porterStem(w), w).toBe(s);
  });

  it("returns a giant word unchanged (a run of y was quadratic and overflowed the stack)", () => {
    const word = `${"y".repeat(100_000)}ing`;
    expect(porterStem(word)).toBe(word);
    expect(porterStem("yyyying")).toBe("yyyi");
  });
});
