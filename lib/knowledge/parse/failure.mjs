// The one error the child reports as a user-actionable reason; anything else is reported as a
// corrupt file.
export class ParseFailure extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.name = "ParseFailure";
    this.reason = reason;
  }
}

export const REASON = {
  corrupt: "the file is corrupt or truncated",
  encryptedPdf: "the PDF is encrypted: remove its password and upload it again",
  encryptedOffice: "the file is password-protected: remove its password and upload it again",
  scannedPdf: "no text found: the pages are scanned images and OCR read no text from them",
  noText: "no text found in the file",
  notText: "the file is not text: it contains binary data",
};

/** An OLE2 compound file (DOC, XLS) starts with this signature. */
export const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
