/**
 * Builds the widget into `.widget/sdui-embed.js`, one minified ES module served by
 * app/v1/sdk/sdui-embed.js; run before the server starts. `tsx scripts/build-widget.ts` prints the
 * sizes.
 */
import { build } from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

export const WIDGET_OUT = path.join(process.cwd(), ".widget/sdui-embed.js");

export async function buildWidget(): Promise<{ bytes: number; gzipBytes: number; ms: number }> {
  const started = performance.now();
  await build({
    entryPoints: [path.join(process.cwd(), "widget/src/index.ts")],
    outfile: WIDGET_OUT,
    bundle: true,
    format: "esm",
    minify: true,
    // Evergreen browsers with custom elements, shadow DOM and adoptedStyleSheets.
    target: ["chrome100", "firefox100", "safari16"],
    legalComments: "none",
    logLevel: "warning",
  });
  const code = fs.readFileSync(WIDGET_OUT);
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, ms: performance.now() - started };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildWidget().then(
    (r) =>
      process.stdout.write(
        `widget: ${WIDGET_OUT} ${r.bytes} B, ${r.gzipBytes} B gzipped, built in ${r.ms.toFixed(0)} ms\n`,
      ),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
