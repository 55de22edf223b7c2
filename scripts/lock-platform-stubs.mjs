#!/usr/bin/env node
/**
 * Keeps `npm ci` working where the registry mirror has only Linux builds of platform packages
 * (@next/swc-*,
 * @tailwindcss/oxide-*): adds the missing lock entries, marked by os/cpu so npm skips them
 * elsewhere. Run after any `npm install` that touches these packages: `node
 * scripts/lock-platform-stubs.mjs`.
 */
import fs from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "freebsd", "linux", "win32", "openbsd", "sunos", "aix"];
const CPU = { arm64: "arm64", x64: "x64", arm: "arm", ia32: "ia32", wasm32: "wasm32", ppc64: "ppc64", s390x: "s390x" };

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  return { os, cpu };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const { os, cpu } = platformOf(dep);
    if (!cpu) continue;
    packages[`node_modules/${dep}`] = {
      version: version.replace(/^[\^~=]/, ""),
      optional: true,
      ...(os ? { os: [os] } : {}),
      cpu: [cpu],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.error(`lock-platform-stubs: added ${added} optional platform entries`);
