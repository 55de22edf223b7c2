import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "./safe-redirect";

/** What a browser makes of a Location header, relative to a page of the panel. */
const resolvedOrigin = (location: string) => new URL(location, "https://gateway.example/login").origin;

describe("safeRedirectPath", () => {
  it("keeps paths of our own origin, normalised", () => {
    expect(safeRedirectPath("/usage")).toBe("/usage");
    expect(safeRedirectPath("/models?group=openai#top")).toBe("/models?group=openai#top");
    expect(safeRedirectPath("playground")).toBe("/playground");
    expect(safeRedirectPath("/a/./b/../usage")).toBe("/a/usage");
    expect(safeRedirectPath("/%2F%2Fevil")).toBe("/%2F%2Fevil");
  });

  it("sends everything that would leave the origin to /", () => {
    const attacks = [
      "//evil.example/x",
      "/\\evil.example/x",
      "\\\\evil.example",
      "/\\localhost:39999/pwned",
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      " //evil.example",
      "/.//evil.example",
      "/..//evil.example",
      "/a/../..//evil.example",
      "https://evil.example",
      "HTTPS://evil.example/",
      "http://gateway.example/usage",
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "mailto:a@evil.example",
      "https:\\\\evil.example",
      "ftp://evil.example",
      "http://[::1",
    ];
    for (const attack of attacks) {
      const out = safeRedirectPath(attack);
      expect(out, JSON.stringify(attack)).toBe("/");
    }
  });

  it("anything that is not a string, or empty, is /", () => {
    for (const v of [undefined, null, "", ["/usage"], 42]) expect(safeRedirectPath(v)).toBe("/");
  });

  it("whatever it returns, a browser resolves to the page's own origin", () => {
    const inputs = [
      "/x",
      "//x",
      "/\\x",
      "/\t/x",
      "/.//x",
      "x:y",
      "?q",
      "#h",
      "/%5C%5Cx",
      "\\/x",
      "/;//x",
      "/%09/x",
      ".//x",
      "..//x",
    ];
    for (const input of inputs) {
      const out = safeRedirectPath(input);
      expect(out.startsWith("/") && !out.startsWith("//"), JSON.stringify(input)).toBe(true);
      expect(resolvedOrigin(out), JSON.stringify(input)).toBe("https://gateway.example");
    }
  });
});
