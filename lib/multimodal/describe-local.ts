import "server-only";
import { AppError } from "@/lib/errors";
import { imageSize } from "@/lib/providers/image-tokens";
import { fetchImage, type FetchImageOptions } from "./fetch-image";
import { sniffImageType, type ImageMime } from "./image-type";
import { ocrImage } from "./ocr";

/**
 * The `local` group's image description: deterministic and offline, so the whole multimodal path
 * is testable without a vision model. It is what a `local` model "sees" of an image, and what a
 * run's image note records: `<width>x<height> <mime>` plus the OCR text, e.g.
 * `240x96 image/png, text: "HELLO WORLD"`. The local model answers with these notes
 * (lib/providers/local/respond.ts: "I received 1 image. Extracted from them: …").
 */

export interface ImageDescription {
  mimeType: ImageMime;
  width: number | null;
  height: number | null;
  sizeBytes: number;
  ocrText: string;
  /** The note handed to the model and recorded in the run's steps. */
  note: string;
}

export function localDescription(img: { mimeType: string; width: number | null; height: number | null; ocrText: string }): string {
  const size = img.width && img.height ? `${img.width}x${img.height}` : "unknown size";
  const text = img.ocrText.replace(/\s+/g, " ").trim();
  return `${size} ${img.mimeType}, ${text ? `text: ${JSON.stringify(text)}` : "no text found"}`;
}

/**
 * Decodes a `data:image/…;base64,` URI to bytes, checking the bytes are the image they claim.
 * @throws AppError 400 naming `param`.
 */
export function decodeDataImage(url: string, param: string, maxBytes = 20 * 1024 * 1024): Buffer {
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(url);
  const refuse = (message: string) => new AppError("invalid_request", message, { param, wireCode: "invalid_image_url" });
  if (!m || !/;base64$/i.test(m[2] ?? "")) throw refuse("The image is not a base64 data: URI.");
  // base64 is 4 characters per 3 bytes; refuse before decoding what cannot fit.
  if (((url.length - m[0].length) * 3) / 4 > maxBytes + 3) throw refuse(`The image is larger than ${maxBytes} bytes.`);
  const bytes = Buffer.from(url.slice(m[0].length), "base64");
  const mime = sniffImageType(bytes);
  if (!mime) throw refuse("The data: URI is not a PNG, JPEG, GIF or WebP image.");
  return bytes;
}

/**
 * Loads one `image_url` (data: URI or HTTPS URL, the latter through the SSRF-safe fetcher), reads
 * its text and describes it.
 * @throws AppError 400 naming `fetch.param` for a refused or unreadable image; 503 from OCR when busy.
 */
export async function describeImageLocally(url: string, fetch: FetchImageOptions): Promise<ImageDescription> {
  let bytes: Buffer;
  if (url.startsWith("data:")) bytes = decodeDataImage(url, fetch.param, fetch.maxBytes);
  else bytes = (await fetchImage(url, fetch)).bytes;
  const mimeType = sniffImageType(bytes)!;
  const size = imageSize(bytes);
  const { text } = await ocrImage(bytes, { param: fetch.param });
  const described = { mimeType, width: size?.width ?? null, height: size?.height ?? null, ocrText: text };
  return { ...described, sizeBytes: bytes.length, note: localDescription(described) };
}
