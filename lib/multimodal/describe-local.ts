import "server-only";
import type { FetchImageOptions } from "./fetch-image";
import type { ImageMime } from "./image-type";
import { loadImage, type LoadedImage } from "./load-image";
import { ocrImage } from "./ocr";

/**
 * The `local` group's deterministic, offline image description, so multimodal is testable without a
 * vision model: `<width>x<height> <mime>` plus the OCR text, e.g. `240x96 image/png, text: "HELLO
 * WORLD"`.
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

export function localDescription(img: {
  mimeType: string;
  width: number | null;
  height: number | null;
  ocrText: string;
}): string {
  const size = img.width && img.height ? `${img.width}x${img.height}` : "unknown size";
  const text = img.ocrText.replace(/\s+/g, " ").trim();
  return `${size} ${img.mimeType}, ${text ? `text: ${JSON.stringify(text)}` : "no text found"}`;
}

/**
 * Loads one `image_url` (data: URI, or HTTPS through the SSRF-safe fetcher) and describes it.
 * @throws AppError 400 naming `fetch.param` for a refused or unreadable image; 503 from OCR when
 * busy.
 * @internal
 */
export async function describeImageLocally(url: string, fetch: FetchImageOptions): Promise<ImageDescription> {
  return describeLoadedImage(await loadImage(url, fetch), fetch.param);
}

/** describeImageLocally for bytes already loaded. */
export async function describeLoadedImage(image: LoadedImage, param: string): Promise<ImageDescription> {
  const { text } = await ocrImage(image.bytes, { param });
  const described = { mimeType: image.mimeType, width: image.width, height: image.height, ocrText: text };
  return { ...described, sizeBytes: image.bytes.length, note: localDescription(described) };
}
