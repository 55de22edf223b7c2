import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { makeDocx, makeZip } from "@/test/support/knowledge-files";
import { ParseFailure } from "./failure.mjs";
import { checkZip } from "./zip-guard.mjs";

const SMALL = { maxEntries: 3, maxEntryBytes: 1000, maxTotalBytes: 1500 };
const reasonOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ParseFailure);
    return (err as ParseFailure).reason;
  }
  throw new Error("expected a ParseFailure");
};

describe("checkZip: the central directory and a capped inflate of every entry, before any library", () => {
  it("passes a real DOCX and counts what it inflates to", async () => {
    const docx = await makeDocx();
    expect(checkZip(docx).entries).toBeGreaterThan(3);
  });

  it("refuses an entry declared over the per-entry cap", () => {
    const zip = makeZip([{ name: "a.xml", data: Buffer.alloc(1001) }]);
    expect(reasonOf(() => checkZip(zip, SMALL))).toBe(
      "a file inside the archive expands beyond 0.00095367431640625 MB",
    );
  });

  it("refuses an entry that inflates past its cap while declaring less", () => {
    const zip = makeZip([{ name: "a.xml", deflated: zlib.deflateRawSync(Buffer.alloc(5000)), declared: 10 }]);
    expect(reasonOf(() => checkZip(zip, SMALL))).toMatch(/^a file inside the archive expands beyond/);
  });

  it("refuses entries adding up past the total cap", () => {
    const zip = makeZip([0, 1].map((i) => ({ name: `${i}.xml`, data: Buffer.alloc(900) })));
    expect(reasonOf(() => checkZip(zip, SMALL))).toMatch(/^the archive expands beyond/);
  });

  it("refuses more entries than the cap", () => {
    const zip = makeZip([0, 1, 2, 3].map((i) => ({ name: `${i}.xml`, data: Buffer.from("x") })));
    expect(reasonOf(() => checkZip(zip, SMALL))).toBe("the archive has more than 3 files");
  });

  it("refuses a truncated zip and bytes that are not a zip", async () => {
    const docx = await makeDocx();
    expect(reasonOf(() => checkZip(docx.subarray(0, docx.length - 30)))).toBe("the file is corrupt or truncated");
    expect(reasonOf(() => checkZip(Buffer.from("PK not really a zip at all, just text")))).toBe(
      "the file is corrupt or truncated",
    );
  });
});
