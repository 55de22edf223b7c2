// XLSX through exceljs, after the zip check (exceljs inflates every part with JSZip).
import ExcelJS from "exceljs";
import { ParseFailure, REASON } from "./failure.mjs";
import { MAX_CELLS } from "./limits.mjs";
import { rowSegments, tooManyCells } from "./sheet-rows.mjs";
import { checkZip } from "./zip-guard.mjs";

function cellText(cell) {
  try {
    return cell.text ?? "";
  } catch {
    return "";
  }
}

/** @param {Buffer} bytes */
export async function parseXlsx(bytes) {
  checkZip(bytes);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes);
  } catch {
    throw new ParseFailure(REASON.corrupt);
  }
  const count = { cells: 0 };
  const segments = [];
  for (const ws of workbook.worksheets) {
    // The sheet's declared extent, before walking it: rows × columns bounds the cells.
    if (ws.actualRowCount * Math.max(1, ws.actualColumnCount) > MAX_CELLS * 4) throw tooManyCells();
    const rows = [];
    ws.eachRow({ includeEmpty: false }, (row) => {
      const cells = [];
      row.eachCell({ includeEmpty: true }, (cell, col) => {
        cells[col - 1] = cellText(cell);
      });
      rows.push(Array.from(cells, (c) => c ?? ""));
    });
    segments.push(...rowSegments(ws.name, rows, count));
  }
  if (segments.length === 0) throw new ParseFailure(REASON.noText);
  return { segments, pages: workbook.worksheets.length };
}
