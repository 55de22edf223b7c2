import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { AppError } from "@/lib/errors";

/** Written by scripts/build-widget.ts (npm start, npm test, npm run build). */
const WIDGET_FILE = path.join(process.cwd(), ".widget/sdui-embed.js");

export interface WidgetAsset {
  body: Buffer;
  gzip: Buffer;
  /** Strong ETag from the content hash: a rebuilt widget is a new tag. */
  etag: string;
  mtimeMs: number;
}

let cached: WidgetAsset | null = null;

/**
 * The built widget, read once and kept with its gzip (Next's own compression is off: next.config.ts).
 * The file's mtime is checked on each call (one stat) so `npm run dev` serves a rebuilt widget.
 * @throws internal when the widget was never built.
 */
export function loadWidgetAsset(): WidgetAsset {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(WIDGET_FILE);
  } catch (err) {
    throw new AppError("internal", "The widget is not built: run `npx tsx scripts/build-widget.ts` (npm start and npm run build do)", { cause: err });
  }
  if (cached?.mtimeMs === stat.mtimeMs) return cached;
  const body = fs.readFileSync(WIDGET_FILE);
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 22);
  cached = { body, gzip: gzipSync(body, { level: 9 }), etag: `"${hash}"`, mtimeMs: stat.mtimeMs };
  return cached;
}

/** True when If-None-Match names the tag (a list, weak tags and `*` included, RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/** Accept-Encoding allows gzip (a `gzip;q=0` refuses it). */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return (name === "gzip" || name === "*") && (!q || Number(q.slice(2)) > 0);
  });
}
