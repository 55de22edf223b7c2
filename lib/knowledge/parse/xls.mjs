// XLS through SheetJS CE (@e965/xlsx): npm `xlsx` stopped at 0.18.5 (CVE-2023-30533,
// CVE-2024-22363). Only OLE input reaches it, so none of its text-format readers run on uploads.
import * as XLSX from "@e965/xlsx";
import { CFB_SIGNATURE, ParseFailure, REASON } from "./failure.mjs";
import { MAX_CELLS } from "./limits.mjs";
import { rowSegments } from "./sheet-rows.mjs";

/** @param {Buffer} bytes */
export function parseXls(bytes) {
  if (!bytes.subarray(0, 8).equals(CFB_SIGNATURE)) throw new ParseFailure(REASON.corrupt);
  let wb;
  try {
    // sheetRows bounds the rows read per sheet, so a sheet claiming millions of rows stops early.
    wb = XLSX.read(bytes, {
      type: "buffer",
      dense: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      sheetRows: MAX_CELLS + 1,
    });
  } catch (err) {
    if (/password|encrypt/i.test(String(err?.message))) throw new ParseFailure(REASON.encryptedOffice);
    throw new ParseFailure(REASON.corrupt);
  }
  const count = { cells: 0 };
  const segments = [];
  for (const name of wb.SheetNames) {
    const ws = wb.Sheets[name];
    if (!ws) continue;
    const rows = XLSX.utils.sheet_to_json(ws, { header: 1, raw: false, blankrows: false, defval: "" });
    segments.push(...rowSegments(name, rows, count));
  }
  if (segments.length === 0) throw new ParseFailure(REASON.noText);
  return { segments, pages: wb.SheetNames.length };
}
