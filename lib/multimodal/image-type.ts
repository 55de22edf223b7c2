/** The formats every vision provider we route to accepts, told by magic bytes, never by Content-Type or file name. */
export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export function sniffImageType(b: Uint8Array): ImageMime | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (
    b.length >= 8 &&
    b[0] === 0x89 &&
    ascii(1, 4) === "PNG" &&
    b[4] === 0x0d &&
    b[5] === 0x0a &&
    b[6] === 0x1a &&
    b[7] === 0x0a
  )
    return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "image/gif";
  if (b.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return null;
}
