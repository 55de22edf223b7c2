import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { renderTextPng } from "@/test/support/png";
import { ocrImage, terminateOcr } from "./ocr";

afterAll(terminateOcr);

describe("ocrImage", () => {
  it("reads the words of a PNG drawn in the test", async () => {
    const { png } = renderTextPng(["HELLO WORLD", "TOTAL 1234"]);
    const result = await ocrImage(png);
    expect(result.text).toMatch(/HELLO\s+WORLD/);
    expect(result.text).toMatch(/TOTAL\s+1234/);
    expect(result.confidence).toBeGreaterThan(50);
  }, 60_000);

  it("reuses its one worker for the next image", async () => {
    const { png } = renderTextPng(["GATEWAY"]);
    expect((await ocrImage(png)).text).toBe("GATEWAY");
  }, 60_000);

  it("refuses bytes that are not an image, naming the part", async () => {
    const err = await ocrImage(Buffer.from("<html>not an image</html>"), { param: "messages.0.content.1.image_url" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).param).toBe("messages.0.content.1.image_url");
  });
});
