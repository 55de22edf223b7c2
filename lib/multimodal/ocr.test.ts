import { afterAll, describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { runOcrOffline } from "@/test/support/ocr-offline";
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

  it("loads its language data from disk: no connection, DNS lookup or fetch in the process or the worker", () => {
    const child = runOcrOffline();
    expect(child.stderr).toContain("no-net preload in worker");
    expect(child.stderr).not.toContain("NETWORK ATTEMPT");
    expect(JSON.parse(child.stdout)).toEqual({ text: "HELLO WORLD" });
  }, 70_000);

  it("refuses bytes that are not an image, naming the part", async () => {
    const err = await ocrImage(Buffer.from("<html>not an image</html>"), {
      param: "messages.0.content.1.image_url",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    expect((err as AppError).param).toBe("messages.0.content.1.image_url");
  });
});

describe("terminateOcr", () => {
  it("fails the job in flight instead of leaving it pending, and the next job starts a new worker", async () => {
    const { png } = renderTextPng(["HELLO WORLD"]);
    // Long enough to still be in the worker when stopped: a one-line job could finish first.
    const { png: page } = renderTextPng(
      Array.from({ length: 60 }, () => "HELLO WORLD TOTAL 1234 HELLO WORLD"),
      8,
    );
    const pending = ocrImage(page);
    await new Promise((r) => setTimeout(r, 20));
    await terminateOcr();
    await expect(pending).rejects.toMatchObject({ wireCode: "ocr_stopped" });
    expect((await ocrImage(png)).text).toBe("HELLO WORLD");
  }, 60_000);
});
