import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A customer's web site for the widget tests: plain HTML from its own loopback server, another
 * origin than the gateway (another port). `page(path, html)` publishes a page; `/token` is the
 * site's own backend exchanging its SDK key with the gateway (the `token-url` way: the key never
 * reaches the browser), with a cookie check standing in for the site's own session.
 */
export interface HostSite {
  origin: string;
  page(path: string, html: string): string;
  setKey(key: string): void;
  tokenCalls(): number;
  close(): Promise<void>;
}

export async function startHostSite(gateway: string): Promise<HostSite> {
  const pages = new Map<string, string>();
  let key = "";
  let calls = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://host");
    if (url.pathname === "/token" && req.method === "POST") {
      calls++;
      if (!/(^|;\s*)session=ok/.test(req.headers.cookie ?? "")) {
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"sign in first"}');
        return;
      }
      fetch(`${gateway}/v1/sdk/token`, { method: "POST", headers: { authorization: `Bearer ${key}` } }).then(
        async (r) => res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text()),
        () => res.writeHead(502).end(),
      );
      return;
    }
    const html = pages.get(url.pathname);
    if (!html) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8", "set-cookie": "session=ok; Path=/; SameSite=Lax" })
      .end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(path, html) {
      pages.set(path, html);
      return `${origin}${path}`;
    },
    setKey: (k) => (key = k),
    tokenCalls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A stylesheet that restyles everything it can reach: the widget must look the same under it. */
export const HOSTILE_CSS = `
* { font-family: "Courier New", monospace !important; color: rgb(255, 0, 0) !important; letter-spacing: 3px; text-transform: uppercase; box-sizing: content-box; line-height: 3; }
table { border: 5px dashed rgb(0, 255, 0); background: rgb(255, 255, 0); border-collapse: separate; }
td, th { padding: 30px; background: rgb(0, 0, 255); }
button { background: rgb(255, 0, 255) !important; border-radius: 0; font-size: 30px; padding: 20px; display: block; width: 100%; }
input, select { font-size: 40px; border: 4px solid rgb(0, 255, 255); }
`;

/** A host page loading the real script as a module, with one widget. */
export function hostHtml(args: {
  gateway: string;
  attrs: Record<string, string>;
  css?: string;
  script?: string;
}): string {
  const attrs = Object.entries(args.attrs)
    .map(([k, v]) => `${k}="${v.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`)
    .join(" ");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Customer site</title>
<style>${args.css ?? ""}</style>
<script>window.__events = []; for (const t of ["cockpit-action", "cockpit-error", "cockpit-render"]) document.addEventListener(t, (e) => window.__events.push({ type: t, detail: e.detail }));</script>
${args.script ?? ""}
<script type="module" src="${args.gateway}/v1/sdk/sdui-embed.js"></script></head>
<body><h1>Our customer portal</h1><table><tr><td>host table</td></tr></table><button>host button</button>
<cockpit-widget ${attrs}></cockpit-widget></body></html>`;
}
