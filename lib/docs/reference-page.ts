import { createHash } from "node:crypto";

/** Scalar's options: the document, and nothing fetched from scalar.com (fonts, telemetry, proxy, agent). */
const CONFIG = {
  url: "/v1/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  metaData: { title: "Cockpit Gateway API" },
};

const INIT = `Scalar.createApiReference("#app", ${JSON.stringify(CONFIG)});`;

/**
 * No inline script but INIT (allowed by its hash); Scalar injects its own styles, hence
 * 'unsafe-inline' for styles only; the document and the bundle come from this origin.
 */
const CSP = [
  "default-src 'self'",
  `script-src 'self' 'sha256-${createHash("sha256").update(INIT).digest("base64")}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The /docs/api page: Scalar's standalone bundle pointed at /v1/openapi.json, with its headers. */
export function referencePage(scalarVersion: string): { html: string; headers: Record<string, string> } {
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Cockpit Gateway API</title>
    <link rel="icon" href="/icon.svg" />
  </head>
  <body>
    <noscript>The API reference needs JavaScript. The document itself is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
    <div id="app"></div>
    <script src="/docs/api/scalar.js?v=${scalarVersion}"></script>
    <script>${INIT}</script>
  </body>
</html>
`;
  return {
    html,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "public, max-age=300",
    },
  };
}
