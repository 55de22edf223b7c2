/** The embed code the /widgets page offers: the token-url way first (no key in the page), the direct key second. */
const KEY_PLACEHOLDER = "sk-cp-…your widget key…";

function scriptTag(gateway: string): string {
  return `<script type="module" src="${gateway}/v1/sdk/sdui-embed.js"></script>`;
}

export function tokenUrlSnippet(gateway: string, service: string, view: string): string {
  return `${scriptTag(gateway)}
<cockpit-widget gateway="${gateway}" service="${service}" view="${view}"
  token-url="/api/cockpit-token"></cockpit-widget>`;
}

/** The host's backend route the token-url snippet calls (Node, Express-style). */
export function backendSnippet(gateway: string, key: string | null): string {
  return `// Your backend: COCKPIT_WIDGET_KEY=${key ?? KEY_PLACEHOLDER}
// Swaps the key for a 5-minute token; the widget calls this again before the token expires.
app.post("/api/cockpit-token", requireSignedInUser, async (req, res) => {
  const r = await fetch("${gateway}/v1/sdk/token", {
    method: "POST",
    headers: { Authorization: \`Bearer \${process.env.COCKPIT_WIDGET_KEY}\` },
  });
  res.status(r.status).json(await r.json()); // {token, expires_in, expires_at, …}
});`;
}

export function directSnippet(gateway: string, service: string, view: string, key: string | null): string {
  return `${scriptTag(gateway)}
<cockpit-widget gateway="${gateway}" service="${service}" view="${view}"
  auth-token="${key ?? KEY_PLACEHOLDER}"></cockpit-widget>`;
}
