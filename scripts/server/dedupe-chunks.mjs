// @ts-check
/**
 * Turbopack writes the same server chunk under several names, one per route that needs it, the
 * copies differing only in their source-map comment; every name a process loads keeps another
 * copy of the source in its heap (about 1 MiB for the largest, once per route served). This loads
 * each distinct chunk once: a chunk whose content was loaded under another name gets that one's
 * exports, which Turbopack's runtime then finds already installed.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import Module from "node:module";
import path from "node:path";

const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\s*$/;

/**
 * The content of a chunk without its source-map comment, by which copies are told apart.
 * @param {string} source
 */
export function chunkIdentity(source) {
  return crypto.createHash("sha256").update(source.replace(SOURCE_MAP_COMMENT, "")).digest("base64");
}

/**
 * Installs the loader for CommonJS files under `chunksDir` (`.next/server/chunks`). Idempotent.
 * @param {string} chunksDir
 */
export function dedupeServerChunks(chunksDir) {
  const prefix = path.resolve(chunksDir) + path.sep;
  /** @type {Record<string, (module: any, filename: string) => void>} */
  const extensions = /** @type {any} */ (Module)._extensions;
  const original = extensions[".js"];
  if (!original || /** @type {any} */ (original).dedupesChunks) return;
  /** @type {Map<string, { exports: unknown }>} */
  const loaded = new Map();
  /** @this {unknown} @param {any} module @param {string} filename */
  const load = function (module, filename) {
    if (!filename.startsWith(prefix)) return original.call(this, module, filename);
    const source = fs.readFileSync(filename, "utf8");
    const identity = chunkIdentity(source);
    const first = loaded.get(identity);
    if (first) {
      module.exports = first.exports;
      return;
    }
    module._compile(source, filename);
    loaded.set(identity, module);
  };
  load.dedupesChunks = true;
  extensions[".js"] = load;
}
