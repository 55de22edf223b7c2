import { describe, expect, it } from "vitest";
import { ParseFailure } from "./failure.mjs";
import { MAX_CELLS } from "./limits.mjs";
import { rowSegments } from "./sheet-rows.mjs";

describe("rowSegments", () => {
  it("takes the first non-empty row as the header, skips empty rows, trims trailing empty cells", () => {
    const rows = [[], ["Name", "Role", ""], ["", ""], ["Ingrid", "Dock lead", ""], ["Ola", "", ""]];
    expect(rowSegments("Staff", rows, { cells: 0 })).toEqual([
      { kind: "row", text: "Ingrid | Dock lead", sheet: "Staff", header: "Name | Role" },
      { kind: "row", text: "Ola", sheet: "Staff", header: "Name | Role" },
    ]);
  });

  it("keeps a sheet that is only a header", () => {
    expect(rowSegments("Empty", [["A", "B"]], { cells: 0 })).toEqual([
      { kind: "row", text: "A | B", sheet: "Empty", header: "A | B" },
    ]);
  });

  it("refuses a workbook past the cell cap, counted over all sheets", () => {
    const count = { cells: MAX_CELLS - 2 };
    expect(() => rowSegments("Big", [["a", "b", "c"]], count)).toThrow(ParseFailure);
    expect(() => rowSegments("Big", [["a", "b", "c"]], { cells: MAX_CELLS - 2 })).toThrow(
      "the spreadsheet has more than 2,000,000 cells",
    );
  });
});
