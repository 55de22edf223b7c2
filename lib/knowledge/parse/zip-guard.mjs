// Inflates each entry into nothing, capped, before JSZip sees the zip: JSZip trusts the declared
// sizes and checks them only after inflating everything, and those sizes can lie.
import zlib from "node:zlib";
import { CFB_SIGNATURE, ParseFailure, REASON } from "./failure.mjs";
import { ZIP_LIMITS } from "./limits.mjs";

const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;
const MB = 1024 * 1024;

function findEndOfCentralDirectory(buf) {
  // The record is 22 bytes plus a comment of at most 65535.
  const stop = Math.max(0, buf.length - 22 - 65535);
  for (let i = buf.length - 22; i >= stop; i--) if (buf.readUInt32LE(i) === EOCD_SIG) return i;
  throw new ParseFailure(REASON.corrupt);
}

/** Inflated size of one deflate stream, stopping as soon as it passes `cap` (returns cap + 1). */
function inflatedSize(data, cap) {
  try {
    // maxOutputLength makes zlib throw RangeError past the cap instead of allocating more; the
    // output is dropped at once.
    return zlib.inflateRawSync(data, { maxOutputLength: cap + 1 }).length;
  } catch (err) {
    if (err instanceof RangeError || err?.code === "ERR_BUFFER_TOO_LARGE") return cap + 1;
    throw new ParseFailure(REASON.corrupt);
  }
}

/**
 * @param {Buffer} buf
 * @param {typeof ZIP_LIMITS} [limits]
 * @throws ParseFailure when the archive is malformed or expands beyond the limits
 */
export function checkZip(buf, limits = ZIP_LIMITS) {
  // A password-protected DOCX/XLSX is not a zip: Office wraps the encrypted package in an OLE file.
  if (buf.subarray(0, 8).equals(CFB_SIGNATURE)) throw new ParseFailure(REASON.encryptedOffice);
  if (buf.length < 22 || buf.readUInt32LE(0) !== LFH_SIG) throw new ParseFailure(REASON.corrupt);
  const eocd = findEndOfCentralDirectory(buf);
  const entries = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  // ZIP64 markers: Office never writes ZIP64 for files under 4 GB, and our uploads are far smaller.
  if (entries === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) {
    throw new ParseFailure(`the archive expands beyond ${limits.maxTotalBytes / MB} MB`);
  }
  if (entries > limits.maxEntries) throw new ParseFailure(`the archive has more than ${limits.maxEntries} files`);
  if (cdOffset + cdSize > eocd) throw new ParseFailure(REASON.corrupt);

  let total = 0;
  let at = cdOffset;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > eocd || buf.readUInt32LE(at) !== CDH_SIG) throw new ParseFailure(REASON.corrupt);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const declared = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    at += 46 + nameLen + extraLen + commentLen;

    if (declared > limits.maxEntryBytes)
      throw new ParseFailure(`a file inside the archive expands beyond ${limits.maxEntryBytes / MB} MB`);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== LFH_SIG) throw new ParseFailure(REASON.corrupt);
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (dataStart + compressed > buf.length) throw new ParseFailure(REASON.corrupt);
    const data = buf.subarray(dataStart, dataStart + compressed);

    let actual;
    if (method === 0) actual = compressed;
    else if (method === 8) actual = inflatedSize(data, Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total));
    else throw new ParseFailure(REASON.corrupt);
    if (actual > limits.maxEntryBytes)
      throw new ParseFailure(`a file inside the archive expands beyond ${limits.maxEntryBytes / MB} MB`);
    total += actual;
    if (total > limits.maxTotalBytes)
      throw new ParseFailure(`the archive expands beyond ${limits.maxTotalBytes / MB} MB`);
  }
  return { entries, totalBytes: total };
}
