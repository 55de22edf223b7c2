import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createWorker, OEM, type Worker } from "tesseract.js";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { imageSize } from "@/lib/providers/image-tokens";
import { onShutdown } from "@/lib/shutdown";
import { sniffImageType } from "./image-type";

/**
 * OCR with tesseract.js in a worker thread, English data read from `@tesseract.js-data/eng` on
 * disk, no cache, nothing downloaded. One worker per process runs one job at a time: past
 * MAX_QUEUED waiting jobs a call gets 503, and a job over the time cap terminates the worker
 * (tesseract cannot cancel), so the next starts a fresh one.
 */

// Resolved from the project directory, like lib/cpu/pool.ts: inside the Next.js bundle
// `require.resolve` does not point at node_modules.
const ENG_LANG_PATH = path.join(process.cwd(), "node_modules/@tesseract.js-data/eng/4.0.0_best_int");

const MAX_QUEUED = 16;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Larger images are not OCR'd: tesseract's wasm heap would hold every pixel (4 bytes each). */
const MAX_OCR_PIXELS = 40_000_000;

export interface OcrResult {
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
  ms: number;
}

let worker: Promise<Worker> | undefined;
/** Rejects the job in flight when its worker is terminated: tesseract.js would leave it pending. */
let onTerminate: ((err: AppError) => void) | undefined;
let queued = 0;
let tail: Promise<unknown> = Promise.resolve();
let cacheDir: string | undefined;

function getWorker(): Promise<Worker> {
  worker ??= (async () => {
    cacheDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-ocr-"));
    const w = await createWorker("eng", OEM.LSTM_ONLY, {
      langPath: ENG_LANG_PATH,
      cachePath: cacheDir,
      cacheMethod: "none",
      gzip: true,
      errorHandler: (err: unknown) => log.warn({ err }, "ocr worker error"),
    });
    return w;
  })().catch((err: unknown) => {
    worker = undefined;
    throw err;
  });
  return worker;
}

/**
 * Stops the worker (shutdown, a job over its time cap, tests). Safe to call when none runs.
 * @internal
 */
export async function terminateOcr(): Promise<void> {
  const w = worker;
  worker = undefined;
  onTerminate?.(new AppError("unavailable", "Text recognition was stopped.", { wireCode: "ocr_stopped" }));
  if (w) await (await w.catch(() => null))?.terminate().catch(() => {});
}

onShutdown(terminateOcr);

/**
 * The text in an image given as bytes (never a path or URL, which tesseract.js would read or fetch
 * itself).
 * @throws AppError 400 (naming `param`) for bytes that are not such an image or are too large; 503
 * `ocr_busy` when MAX_QUEUED jobs wait, `ocr_timeout` past the time cap.
 */
export async function ocrImage(bytes: Buffer, opts: { param?: string; timeoutMs?: number } = {}): Promise<OcrResult> {
  if (!sniffImageType(bytes))
    throw new AppError("invalid_request", "The image is not a PNG, JPEG, GIF or WebP image.", {
      param: opts.param,
      wireCode: "invalid_image",
    });
  const size = imageSize(bytes);
  if (size && size.width * size.height > MAX_OCR_PIXELS) {
    throw new AppError("invalid_request", `The image has more than ${MAX_OCR_PIXELS} pixels to read.`, {
      param: opts.param,
      wireCode: "image_too_large",
    });
  }
  if (queued >= MAX_QUEUED)
    throw new AppError("unavailable", "Text recognition is busy; retry shortly.", { wireCode: "ocr_busy" });
  queued++;
  const job = tail.then(() => recognize(bytes, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  tail = job.catch(() => {});
  try {
    return await job;
  } finally {
    queued--;
  }
}

async function recognize(bytes: Buffer, timeoutMs: number): Promise<OcrResult> {
  const started = performance.now();
  const w = await getWorker();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    onTerminate = reject;
    timer = setTimeout(
      () =>
        reject(
          new AppError("unavailable", `Text recognition took longer than ${timeoutMs} ms.`, {
            wireCode: "ocr_timeout",
          }),
        ),
      timeoutMs,
    );
  });
  try {
    const { data } = await Promise.race([w.recognize(bytes), timedOut]);
    return { text: data.text.trim(), confidence: data.confidence, ms: Math.round(performance.now() - started) };
  } catch (err) {
    // The worker may still be busy with this image (timeout) or broken: start afresh next time.
    await terminateOcr();
    throw err;
  } finally {
    clearTimeout(timer);
    onTerminate = undefined;
  }
}
