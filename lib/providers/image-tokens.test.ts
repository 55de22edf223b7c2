import { describe, expect, it } from "vitest";
import {
  LOW_DETAIL_TOKENS,
  MAX_IMAGE_TOKENS,
  dataUriSize,
  imagePartTokens,
  imageSize,
  tilesTokens,
} from "./image-tokens";

function png(width: number, height: number): Buffer {
  const b = Buffer.alloc(64);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

function jpeg(width: number, height: number): Buffer {
  // SOI, an APP0 segment to skip, then SOF0 with the frame size.
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.alloc(14)]);
  const sof = Buffer.from([
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    3,
    ...Buffer.alloc(9),
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}

describe("image tokens (OpenAI's vision rule)", () => {
  it("reads PNG, JPEG and GIF sizes from their headers", () => {
    expect(imageSize(png(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(imageSize(jpeg(4000, 3000))).toEqual({ width: 4000, height: 3000 });
    expect(imageSize(Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x40, 0x01, 0xf0, 0x00]))).toEqual({
      width: 320,
      height: 240,
    });
    expect(imageSize(Buffer.from("not an image"))).toBeNull();
  });

  it("counts 85 + 170 per 512-px tile after scaling, as OpenAI documents", () => {
    expect(tilesTokens(1024, 1024)).toBe(765); // scaled to 768×768: 4 tiles
    expect(tilesTokens(2048, 4096)).toBe(1105); // 1024×2048 → 768×1536: 6 tiles
    expect(tilesTokens(100, 100)).toBe(255); // one tile
  });

  it("holds the largest cost when the size is unknown, and 85 for low detail", () => {
    expect(imagePartTokens({ image_url: { url: "https://example.com/a.png" } })).toBe(MAX_IMAGE_TOKENS);
    expect(imagePartTokens({ image_url: { url: "https://example.com/a.png", detail: "low" } })).toBe(LOW_DETAIL_TOKENS);
    const url = `data:image/png;base64,${Buffer.concat([png(1024, 1024), Buffer.alloc(1000, 7)]).toString("base64")}`;
    expect(dataUriSize(url)).toEqual({ width: 1024, height: 1024 });
    expect(imagePartTokens({ image_url: { url } })).toBe(765);
  });
});
