import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { AppError } from "@/lib/errors";
import type { ContentCoding } from "@/lib/http/accept-encoding";

/** Written by scripts/build-widget.ts (npm start, npm test, npm run build). */
const WIDGET_FILE = path.join(process.cwd(), ".widget/sdui-embed.js");

/** One encoding of the script: its bytes and its own strong ETag (caches store each apart). */
export interface WidgetVariant {
  body: Buffer;
  etag: string;
}

export interface WidgetAsset {
  body: Buffer;
  /** Strong ETag from the content hash: a rebuilt widget is a new tag. */
  etag: string;
  mtimeMs: number;
  /** Compressed once per build, on first demand. */
  encoded: Partial<Record<ContentCoding, WidgetVariant>>;
}

let cached: WidgetAsset | null = null;

/**
 * The built widget, read once. The mtime is checked per call so `npm run dev` serves a rebuild.
 * @throws internal when the widget was never built.
 */
export function loadWidgetAsset(): WidgetAsset {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(WIDGET_FILE);
  } catch (err) {
    throw new AppError(
      "internal",
      "The widget is not built: run `npx tsx scripts/build-widget.ts` (npm start and npm run build do)",
      { cause: err },
    );
  }
  if (cached?.mtimeMs === stat.mtimeMs) return cached;
  const body = fs.readFileSync(WIDGET_FILE);
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 22);
  cached = { body, etag: `"${hash}"`, mtimeMs: stat.mtimeMs, encoded: {} };
  return cached;
}

const compress: Record<Exclude<ContentCoding, "identity">, (body: Buffer) => Buffer> = {
  br: (body) =>
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  gzip: (body) => gzipSync(body, { level: 9 }),
};

/**
 * The asset in `coding`, compressed at most once per build. Each encoding has its own ETag (the
 * identity tag with a suffix): a strong tag promises identical bytes, which two encodings are not.
 */
export function widgetVariant(asset: WidgetAsset, coding: ContentCoding): WidgetVariant {
  if (coding === "identity") return { body: asset.body, etag: asset.etag };
  return (asset.encoded[coding] ??= {
    body: compress[coding](asset.body),
    etag: `${asset.etag.slice(0, -1)}-${coding}"`,
  });
}

/** True when If-None-Match names the tag (a list, weak tags and `*` included, RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}
