import "server-only";
import { AppError } from "@/lib/errors";
import { imageSize } from "@/lib/providers/image-tokens";
import { fetchImage, type FetchImageOptions } from "./fetch-image";
import { sniffImageType, type ImageMime } from "./image-type";

export interface LoadedImage {
  bytes: Buffer;
  mimeType: ImageMime;
  width: number | null;
  height: number | null;
}

/**
 * The bytes of one `image_url` (data: URI or HTTPS via the SSRF-safe fetcher), checked by magic
 * bytes.
 * @throws AppError 400 `invalid_image_url` naming `opts.param`; the caller's abort reason.
 */
export async function loadImage(url: string, opts: FetchImageOptions): Promise<LoadedImage> {
  const bytes = url.startsWith("data:")
    ? decodeDataImage(url, opts.param, opts.maxBytes)
    : (await fetchImage(url, opts)).bytes;
  const size = imageSize(bytes);
  return { bytes, mimeType: sniffImageType(bytes)!, width: size?.width ?? null, height: size?.height ?? null };
}

/**
 * Decodes a `data:image/…;base64,` URI to bytes, checking the bytes are the image they claim.
 * @throws AppError 400 naming `param`.
 * @internal
 */
export function decodeDataImage(url: string, param: string, maxBytes = 20 * 1024 * 1024): Buffer {
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(url);
  const refuse = (message: string) =>
    new AppError("invalid_request", message, { param, wireCode: "invalid_image_url" });
  if (!m || !/;base64$/i.test(m[2] ?? "")) throw refuse("The image is not a base64 data: URI.");
  // base64 is 4 characters per 3 bytes; refuse before decoding what cannot fit.
  if (((url.length - m[0].length) * 3) / 4 > maxBytes + 3) throw refuse(`The image is larger than ${maxBytes} bytes.`);
  const bytes = Buffer.from(url.slice(m[0].length), "base64");
  const mime = sniffImageType(bytes);
  if (!mime) throw refuse("The data: URI is not a PNG, JPEG, GIF or WebP image.");
  return bytes;
}
