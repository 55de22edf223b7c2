// @ts-check
/**
 * The `route` label of a request: the App Router pattern it matches (`/v1/threads/[threadId]/runs`),
 * never its path, so ids never become label values. Patterns come from the build's routes
 * manifest; a path matching none is `other`, and Next.js's own assets are `/_next`.
 */
import fs from "node:fs";
import path from "node:path";

export const OTHER_ROUTE = "other";
const NEXT_ASSETS = "/_next";

/**
 * @typedef {object} RouteNode
 * @property {Map<string, RouteNode>} fixed children by literal segment
 * @property {RouteNode | null} param child for a `[name]` segment
 * @property {string | null} catchAll pattern of a `[...name]` child (one or more segments)
 * @property {string | null} optionalCatchAll pattern of a `[[...name]]` child (zero or more)
 * @property {string | null} route pattern ending here
 */

/** @returns {RouteNode} */
const node = () => ({ fixed: new Map(), param: null, catchAll: null, optionalCatchAll: null, route: null });

/**
 * A matcher over route patterns (`/a/[id]/b`, `/x/[...rest]`, `/y/[[...rest]]`): literal segments
 * before parameters, as Next.js matches them.
 * @param {string[]} patterns
 * @returns {(pathname: string) => string}
 */
export function routeMatcher(patterns) {
  const root = node();
  for (const pattern of patterns) {
    let at = root;
    for (const seg of pattern.split("/").filter(Boolean)) {
      if (seg.startsWith("[[...")) {
        at.optionalCatchAll = pattern;
        break;
      }
      if (seg.startsWith("[...")) {
        at.catchAll = pattern;
        break;
      }
      if (seg.startsWith("[")) at = at.param ??= node();
      else {
        let next = at.fixed.get(seg);
        if (!next) at.fixed.set(seg, (next = node()));
        at = next;
      }
    }
    if (!pattern.split("/").some((s) => s.startsWith("[..") || s.startsWith("[[..."))) at.route = pattern;
  }

  /**
   * @param {RouteNode} at
   * @param {string[]} segs
   * @param {number} i
   * @returns {string | null}
   */
  const match = (at, segs, i) => {
    if (i === segs.length) return at.route ?? at.optionalCatchAll;
    const seg = /** @type {string} */ (segs[i]);
    const fixed = at.fixed.get(seg);
    const viaFixed = fixed ? match(fixed, segs, i + 1) : null;
    if (viaFixed) return viaFixed;
    const viaParam = at.param && seg !== "" ? match(at.param, segs, i + 1) : null;
    return viaParam ?? at.catchAll ?? at.optionalCatchAll;
  };

  return (pathname) => {
    if (pathname.startsWith(`${NEXT_ASSETS}/`)) return NEXT_ASSETS;
    const segs = pathname.split("/");
    segs.shift();
    if (segs.length > 1 && segs[segs.length - 1] === "") segs.pop();
    if (segs.length === 1 && segs[0] === "") return root.route ?? OTHER_ROUTE;
    return match(root, segs, 0) ?? OTHER_ROUTE;
  };
}

/**
 * The build's route patterns (`.next/routes-manifest.json`), Next.js's internal pages left out.
 * A missing or unreadable manifest gives none: every request is then `other`.
 * @param {string} dir the project directory
 * @returns {string[]}
 */
export function buildRoutes(dir) {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, ".next/routes-manifest.json"), "utf8"));
    /** @type {{ page: string }[]} */
    const routes = [...(manifest.staticRoutes ?? []), ...(manifest.dynamicRoutes ?? [])];
    return routes.map((r) => r.page).filter((p) => typeof p === "string" && !p.startsWith("/_"));
  } catch {
    return [];
  }
}
