import { describe, expect, it } from "vitest";
import { MAX_STORED_TEXT_CHARS, storableContent } from "./storable-content";

describe("storableContent", () => {
  it("stores a data: image as its hash and sizes, never its bytes", () => {
    const bytes = Buffer.alloc(300_000, 9);
    const url = `data:image/png;base64,${bytes.toString("base64")}`;
    const [text, image] = storableContent(
      [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url, detail: "high" } },
      ],
      0,
      undefined,
    ) as any[];
    expect(text).toEqual({ type: "text", text: "look" });
    expect(image.image_url.url).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(image.image_url).toMatchObject({ mime_type: "image/png", size_bytes: 300_000, detail: "high" });
    expect(JSON.stringify(image).length).toBeLessThan(300);
    const pre = storableContent([{ type: "image_url", image_url: { url } }], 2, { "2.0": "ab".repeat(32) }) as any[];
    expect(pre[0].image_url.url).toBe(`sha256:${"ab".repeat(32)}`);
  });

  it("keeps https images as given and bounds long texts", () => {
    const parts = storableContent(
      [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }],
      0,
      undefined,
    ) as any[];
    expect(parts[0].image_url.url).toBe("https://example.com/a.png");
    const long = storableContent("x".repeat(MAX_STORED_TEXT_CHARS + 10), 0, undefined) as string;
    expect(long.startsWith("x".repeat(MAX_STORED_TEXT_CHARS))).toBe(true);
    expect(long).toContain("10 more characters not stored");
  });
});
