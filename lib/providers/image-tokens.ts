/**
 * Image prompt tokens by OpenAI's vision rule (the basis of other groups' prices): low detail is
 * 85; otherwise fit 2048×2048, shorter side ≤ 768, 85 + 170 per 512-px tile. Size comes from a
 * `data:` image's header; an unknown size is counted at the high-detail maximum (768×2048: 8
 * tiles).
 * @internal
 */
export const LOW_DETAIL_TOKENS = 85;
const TILE_TOKENS = 170;
export const MAX_IMAGE_TOKENS = LOW_DETAIL_TOKENS + TILE_TOKENS * 8;

/** @internal */
export function tilesTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorten = Math.min(1, 768 / Math.min(w, h));
  w *= shorten;
  h *= shorten;
  return LOW_DETAIL_TOKENS + TILE_TOKENS * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Width and height from an image's first bytes, or null when the format or header is not one we read. */
export function imageSize(b: Uint8Array): { width: number; height: number } | null {
  const u16be = (i: number) => (b[i]! << 8) | b[i + 1]!;
  const u32be = (i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
  const u16le = (i: number) => b[i]! | (b[i + 1]! << 8);
  const u24le = (i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16);
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47)
    return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return { width: u16le(6), height: u16le(8) };
  if (
    b.length >= 30 &&
    String.fromCharCode(...b.subarray(0, 4)) === "RIFF" &&
    String.fromCharCode(...b.subarray(8, 12)) === "WEBP"
  ) {
    const kind = String.fromCharCode(...b.subarray(12, 16));
    if (kind === "VP8X") return { width: u24le(24) + 1, height: u24le(27) + 1 };
    if (kind === "VP8L")
      return {
        width: (u16le(21) & 0x3fff) + 1,
        height: (((b[22]! >> 6) | (b[23]! << 2) | (b[24]! << 10)) & 0x3fff) + 1,
      };
    if (kind === "VP8 ") return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    return null;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { height: u16be(i + 5), width: u16be(i + 7) };
      i += 2 + u16be(i + 2);
    }
  }
  return null;
}

/** The header of a `data:…;base64,` URI: enough bytes for any SOF marker after EXIF data. */
const HEAD_CHARS = 96 * 1024;

export function dataUriSize(url: string): { width: number; height: number } | null {
  const comma = url.indexOf(",");
  if (!url.startsWith("data:") || comma < 0) return null;
  const head = url.slice(comma + 1, comma + 1 + HEAD_CHARS).replace(/\s+/g, "");
  return imageSize(Buffer.from(head.slice(0, head.length - (head.length % 4)), "base64"));
}

const cache = new WeakMap<object, number>();

/** Prompt tokens of one `image_url` part. */
export function imagePartTokens(part: { image_url?: { url?: unknown; detail?: unknown } }): number {
  const hit = cache.get(part);
  if (hit !== undefined) return hit;
  const img = part.image_url;
  let tokens = MAX_IMAGE_TOKENS;
  if (img?.detail === "low") tokens = LOW_DETAIL_TOKENS;
  else if (typeof img?.url === "string") {
    const size = dataUriSize(img.url);
    if (size && size.width > 0 && size.height > 0) tokens = tilesTokens(size.width, size.height);
  }
  cache.set(part, tokens);
  return tokens;
}
