// @ts-check
/**
 * The App Router route pattern of a request path (`/v1/threads/[threadId]/runs`), from the build's
 * app-path-routes-manifest, for `http.route`: what the fast lane and Next.js serve alike. As in
 * Next.js's routing, segment by segment a static name wins over `[x]`, and `[x]` over catch-alls.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

/** @typedef {{ route: string, segments: string[] }} Pattern */

/**
 * @param {string} dir the project directory holding `.next`
 * @returns {(pathname: string) => string | undefined}
 */
export function routeMatcher(dir) {
  /** @type {Record<string, string>} */
  let manifest = {};
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, ".next/app-path-routes-manifest.json"), "utf8"));
  } catch {
    // No manifest: spans carry no http.route.
  }
  /** @type {Map<string, string>} */
  const exact = new Map();
  /** @type {Pattern[]} */
  const dynamic = [];
  for (const route of new Set(Object.values(manifest))) {
    if (route.includes("[")) dynamic.push({ route, segments: route.split("/") });
    else exact.set(route, route);
  }
  dynamic.sort(bySpecificity);
  return (pathname) => {
    const hit = exact.get(pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname);
    if (hit) return hit;
    const parts = pathname.split("/");
    for (const p of dynamic) if (matches(p.segments, parts)) return p.route;
    return undefined;
  };
}

/** 0 a static segment, 1 `[x]`, 2 `[...x]`, 3 `[[...x]]`. @param {string | undefined} s */
const rank = (s) =>
  s === undefined || !s.startsWith("[") ? 0 : s.startsWith("[[...") ? 3 : s.startsWith("[...") ? 2 : 1;

/** @param {Pattern} a @param {Pattern} b */
function bySpecificity(a, b) {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const d = rank(a.segments[i]) - rank(b.segments[i]);
    if (d !== 0) return d;
  }
  return b.segments.length - a.segments.length;
}

/** @param {string[]} segments @param {string[]} parts */
function matches(segments, parts) {
  for (let i = 0; i < segments.length; i++) {
    const want = /** @type {string} */ (segments[i]);
    // `[...x]` takes one or more segments, `[[...x]]` none or more: either ends the pattern.
    if (want.startsWith("[[...")) return true;
    if (want.startsWith("[...")) return parts.length > i && parts[i] !== "";
    const got = parts[i];
    if (want === got) continue;
    if (got === undefined || got === "" || !want.startsWith("[")) return false;
  }
  return segments.length === parts.length;
}
