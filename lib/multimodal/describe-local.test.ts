import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { localReply } from "@/lib/providers/local/respond";
import { renderTextPng } from "@/test/support/png";
import { describeImageLocally, localDescription } from "./describe-local";
import { decodeDataImage } from "./load-image";
import { terminateOcr } from "./ocr";

afterAll(terminateOcr);

const PARAM = "messages.0.content.1.image_url";

describe("describeImageLocally", () => {
  it("describes a data: image by size, type and OCR text, and the local model answers `1 image` with it", async () => {
    const { png, width, height } = renderTextPng(["HELLO WORLD"]);
    const url = `data:image/png;base64,${png.toString("base64")}`;
    const d = await describeImageLocally(url, { param: PARAM });
    expect(d).toMatchObject({ mimeType: "image/png", width, height, sizeBytes: png.length, ocrText: "HELLO WORLD" });
    expect(d.note).toBe(`${width}x${height} image/png, text: "HELLO WORLD"`);

    const reply = localReply({
      model: "local-mini",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What does it say?" },
            { type: "image_url", image_url: { url } },
          ],
        },
      ],
      params: {},
      imageNotes: [d.note],
    });
    expect(reply).toEqual({ kind: "text", text: `I received 1 image. Extracted from them: ${d.note}` });
  }, 60_000);

  it("is deterministic", () => {
    const img = { mimeType: "image/jpeg", width: 10, height: 20, ocrText: "  two\nlines " };
    expect(localDescription(img)).toBe('10x20 image/jpeg, text: "two lines"');
    expect(localDescription({ ...img, width: null, ocrText: "" })).toBe("unknown size image/jpeg, no text found");
  });

  it("refuses a data: URI that is not an image, or too large, naming the part", () => {
    for (const [url, message] of [
      ["data:image/png;base64,PGh0bWw+", /not a PNG, JPEG, GIF or WebP/],
      ["data:image/png,rawbytes", /not a base64 data: URI/],
      [`data:image/png;base64,${"A".repeat(4000)}`, /larger than 1024 bytes/],
    ] as const) {
      let err: unknown;
      try {
        decodeDataImage(url, PARAM, 1024);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).param).toBe(PARAM);
      expect((err as AppError).message).toMatch(message);
    }
  });

  it("fetches an https URL through the SSRF guard (a private address is a 400)", async () => {
    await expect(describeImageLocally("https://10.0.0.1/a.png", { param: PARAM })).rejects.toMatchObject({
      status: 400,
      param: PARAM,
    });
  });
});
