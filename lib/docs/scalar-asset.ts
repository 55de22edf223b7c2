import "server-only";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Scalar's standalone bundle, served by the app (no CDN: the reference must work offline). Listed
 * in next.config.ts `outputFileTracingIncludes` so traced builds ship it.
 */
const SCALAR_FILE = path.join(process.cwd(), "node_modules/@scalar/api-reference/dist/browser/standalone.js");

interface ScalarAsset {
  body: Buffer;
  /** Content hash: the page asks for `scalar.js?v=<version>`, so browsers may cache the script for good. */
  version: string;
}

let asset: ScalarAsset | undefined;

/** The bundle, read once per process. */
export function loadScalarAsset(): ScalarAsset {
  if (asset) return asset;
  const body = fs.readFileSync(SCALAR_FILE);
  asset = { body, version: createHash("sha256").update(body).digest("base64url").slice(0, 16) };
  return asset;
}
