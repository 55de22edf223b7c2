import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { matchesEtag, widgetVariant, type WidgetAsset } from "./widget-asset";

const asset = (): WidgetAsset => ({
  body: Buffer.from("export const x = 1;\n".repeat(500)),
  etag: '"abc"',
  mtimeMs: 1,
  encoded: {},
});

describe("widget asset conditional requests", () => {
  it("matches If-None-Match lists, weak tags and *", () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('"x", W/"abc"', '"abc"')).toBe(true);
    expect(matchesEtag("*", '"abc"')).toBe(true);
    expect(matchesEtag('"abd"', '"abc"')).toBe(false);
    expect(matchesEtag(null, '"abc"')).toBe(false);
  });
});

describe("widgetVariant", () => {
  it("serves identity as built, and br and gzip that decode to the same bytes", () => {
    const a = asset();
    expect(widgetVariant(a, "identity")).toEqual({ body: a.body, etag: '"abc"' });
    const br = widgetVariant(a, "br");
    const gz = widgetVariant(a, "gzip");
    expect(brotliDecompressSync(br.body).equals(a.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(a.body)).toBe(true);
    expect(br.body.length).toBeLessThan(a.body.length / 10);
  });

  it("gives each encoding its own strong ETag, so a cache never mixes their bytes", () => {
    const a = asset();
    const tags = (["identity", "br", "gzip"] as const).map((c) => widgetVariant(a, c).etag);
    expect(new Set(tags).size).toBe(3);
    expect(tags).toEqual(['"abc"', '"abc-br"', '"abc-gzip"']);
    expect(matchesEtag('"abc"', tags[1]!)).toBe(false);
  });

  it("compresses once per build", () => {
    const a = asset();
    expect(widgetVariant(a, "br")).toBe(widgetVariant(a, "br"));
    expect(widgetVariant(a, "gzip").body).toBe(widgetVariant(a, "gzip").body);
  });
});
