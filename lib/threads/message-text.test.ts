import { describe, expect, it } from "vitest";
import { textSnippet } from "./message-text";

describe("textSnippet", () => {
  it("folds whitespace and keeps short text whole", () => {
    expect(textSnippet("  Where is\n\nmy   parcel? ")).toBe("Where is my parcel?");
  });

  it("cuts long text with an ellipsis", () => {
    const out = textSnippet("word ".repeat(100));
    expect(out.endsWith("…")).toBe(true);
    expect(out.length).toBeLessThanOrEqual(161);
  });

  it("moves the window to show the searched text, case-insensitively", () => {
    const text = `${"lorem ipsum ".repeat(40)}the PARCEL left the depot ${"dolor sit ".repeat(40)}`;
    const out = textSnippet(text, "parcel");
    expect(out).toContain("PARCEL left the depot");
    expect(out.startsWith("…")).toBe(true);
    expect(out.endsWith("…")).toBe(true);
  });

  it("shows the end of the text when the match is near it", () => {
    const text = `${"lorem ipsum ".repeat(40)}the end parcel`;
    const out = textSnippet(text, "parcel");
    expect(out.endsWith("the end parcel")).toBe(true);
  });
});
