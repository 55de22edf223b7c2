import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isStorableJson, isStorableText, storableText, toStorableJson } from "./pg-text";

describe("what PostgreSQL can store", () => {
  it("refuses NUL and unpaired surrogates in text, accepts everything else", () => {
    for (const bad of ["a\u0000b", "\ud800", "x\udc00", "\ud800x", "\udfff\ud800"])
      expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    for (const ok of ["", "plain", "emoji 😀", "\ud83d\ude00", "a\\u0000b", "tab\tnew\nline", "\u0001\u001f"])
      expect(isStorableText(ok), JSON.stringify(ok)).toBe(true);
  });

  it("storableText adds a clear refusal to a string schema", () => {
    const Name = storableText(z.string().min(1));
    expect(Name.parse("ok")).toBe("ok");
    const r = Name.safeParse("a\u0000");
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(/NUL/);
  });

  it("checks JSON objects in keys and values, nested", () => {
    expect(isStorableJson({ a: ["b", { c: "d 😀" }] })).toBe(true);
    expect(isStorableJson({ a: ["b", { c: "d\u0000" }] })).toBe(false);
    expect(isStorableJson({ ["k\ud800"]: 1 })).toBe(false);
    expect(isStorableJson({ a: "the six characters \\u0000" })).toBe(true);
  });

  it("toStorableJson replaces exactly the unstorable characters with U+FFFD and keeps the rest", () => {
    const value = { content: "a\u0000b\ud800c😀", literal: "\\u0000 and \\\\\u0000", list: ["\udc00"] };
    const stored = JSON.parse(toStorableJson(value)) as typeof value;
    expect(stored).toEqual({ content: "a\ufffdb\ufffdc😀", literal: "\\u0000 and \\\\\ufffd", list: ["\ufffd"] });
    // Nothing to replace: the text JSON.stringify gave, untouched.
    const clean = { a: "plain \\u0000 text", b: [1, 2] };
    expect(toStorableJson(clean)).toBe(JSON.stringify(clean));
  });
});
