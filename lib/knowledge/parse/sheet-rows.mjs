// Spreadsheet rows as segments: the first non-empty row of a sheet is its header, and every later
// row carries the sheet's name and that header, so a chunk of rows makes sense alone.
import { ParseFailure } from "./failure.mjs";
import { MAX_CELLS } from "./limits.mjs";

export const tooManyCells = () =>
  new ParseFailure(`the spreadsheet has more than ${MAX_CELLS.toLocaleString("en-US")} cells`);

/**
 * @param {string} sheet
 * @param {Iterable<string[]>} rows cell texts, in order
 * @param {{ cells: number }} count running count over the workbook
 */
export function rowSegments(sheet, rows, count) {
  const segments = [];
  let header;
  for (const cells of rows) {
    const filled = cells.map((c) => (c ?? "").toString().replace(/\s+/g, " ").trim());
    const n = filled.filter(Boolean).length;
    if (n === 0) continue;
    count.cells += n;
    if (count.cells > MAX_CELLS) throw tooManyCells();
    const text = trimEnd(filled).join(" | ");
    if (header === undefined) header = text;
    else segments.push({ kind: "row", text, sheet, header });
  }
  // The header rides on every row; a sheet that is only a header still keeps its text.
  if (segments.length === 0 && header) segments.push({ kind: "row", text: header, sheet, header });
  return segments;
}

function trimEnd(cells) {
  let end = cells.length;
  while (end > 0 && !cells[end - 1]) end--;
  return cells.slice(0, end);
}
