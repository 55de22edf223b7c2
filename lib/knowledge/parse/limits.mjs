// Caps on what one file may expand to inside the parser child. The process-level caps (time,
// memory, output size) are the parent's (parse-document.ts, from lib/env.ts).
const MB = 1024 * 1024;

/** Zip-based formats (DOCX, XLSX), checked before any library inflates them. */
export const ZIP_LIMITS = {
  maxEntries: 10_000,
  maxEntryBytes: 100 * MB,
  maxTotalBytes: 200 * MB,
};

/** Spreadsheets (XLSX, XLS): non-empty cells over all sheets. */
export const MAX_CELLS = 2_000_000;
