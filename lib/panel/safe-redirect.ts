/**
 * Where the panel may send a browser after sign-in (`?callbackUrl=`): a path of our own origin,
 * else `/`. Shared by the login page's server redirect and the login form's `router.replace`.
 *
 * The value is resolved the way a browser resolves a Location header (WHATWG URL: tabs and
 * newlines dropped, `\` read as `/`, dot segments removed) against a placeholder origin; anything
 * that lands elsewhere (`//evil`, `/\evil`, `/\t/evil`, `https://evil`, `javascript:…`) is refused.
 * Only the normalised path, query and fragment are returned, never the input itself, and a path
 * that normalises to `//…` (`/.//evil`) is refused too: as a Location it would be protocol-relative.
 * Absolute URLs are refused even when they name our own host: nothing in the panel makes them,
 * and the placeholder keeps the decision independent of the Host header.
 */
const PLACEHOLDER_ORIGIN = "http://panel.invalid";
const DEFAULT_REDIRECT = "/";

export function safeRedirectPath(value: unknown): string {
  if (typeof value !== "string" || value === "") return DEFAULT_REDIRECT;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return DEFAULT_REDIRECT;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN || !url.pathname.startsWith("/") || url.pathname.startsWith("//"))
    return DEFAULT_REDIRECT;
  return `${url.pathname}${url.search}${url.hash}`;
}
