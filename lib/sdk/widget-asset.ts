import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { AppError } from "@/lib/errors";

/** Written by scripts/build-widget.ts (npm start, npm test, npm run build). */
const WIDGET_FILE = path.join(process.cwd(), ".widget/sdui-embed.js");

export interface WidgetAsset {
  body: Buffer;
  /** Strong ETag from the content hash: a rebuilt widget is a new tag. */
  etag: string;
  mtimeMs: number;
}

let cached: WidgetAsset | null = null;

/**
 * The built widget, read once. Served uncompressed: Next.js drops a route handler's
 * Content-Encoding and its own compression is off, so a proxy compresses it. The mtime is checked
 * per call so `npm run dev` serves a rebuild.
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
  cached = { body, etag: `"${hash}"`, mtimeMs: stat.mtimeMs };
  return cached;
}

/** True when If-None-Match names the tag (a list, weak tags and `*` included, RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}
