// OCR of scanned PDF pages with tesseract.js and on-disk English data (nothing downloaded). Pixels
// become PGM/PPM, whose header is text, so no image encoder is needed.
import path from "node:path";
import { createWorker, OEM } from "tesseract.js";

// The child runs with the project directory as its cwd (parse-document.ts).
const ENG_LANG_PATH = path.join(process.cwd(), "node_modules/@tesseract.js-data/eng/4.0.0_best_int");
/** Larger images are skipped: tesseract's wasm heap would hold every pixel (4 bytes each). */
const MAX_PIXELS = 40_000_000;
/** Smaller ones are icons and rules, not scanned text. */
const MIN_SIDE = 32;

let worker;

function toPnm({ data, width, height, channels }) {
  if (channels === 1)
    return Buffer.concat([
      Buffer.from(`P5\n${width} ${height}\n255\n`),
      Buffer.from(data.buffer, data.byteOffset, width * height),
    ]);
  const rgb = Buffer.alloc(width * height * 3);
  for (let p = 0, q = 0; p < width * height; p++, q += channels) {
    rgb[p * 3] = data[q];
    rgb[p * 3 + 1] = data[q + 1];
    rgb[p * 3 + 2] = data[q + 2];
  }
  return Buffer.concat([Buffer.from(`P6\n${width} ${height}\n255\n`), rgb]);
}

/** @param {{ data: Uint8ClampedArray, width: number, height: number, channels: number }[]} images */
export async function ocrImages(images) {
  const texts = [];
  for (const image of images) {
    const { width, height } = image;
    if (width < MIN_SIDE || height < MIN_SIDE || width * height > MAX_PIXELS) continue;
    if (![1, 3, 4].includes(image.channels)) continue;
    worker ??= await createWorker("eng", OEM.LSTM_ONLY, { langPath: ENG_LANG_PATH, cacheMethod: "none", gzip: true });
    const { data } = await worker.recognize(toPnm(image));
    if (data.text.trim()) texts.push(data.text.trim());
  }
  return texts;
}

export async function closeOcr() {
  await worker?.terminate();
  worker = undefined;
}
