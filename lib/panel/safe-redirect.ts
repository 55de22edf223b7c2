/**
 * Where the panel may send a browser after sign-in: a path of our own origin, else `/`. Resolved as
 * a browser resolves a Location (WHATWG URL) against a placeholder origin; anything landing
 * elsewhere, or normalising to `//…`, is refused, and only the normalised path, query and fragment
 * are returned. Absolute URLs are refused even for our host.
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
