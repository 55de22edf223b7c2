import { describe, expect, it } from "vitest";
import { matchesEtag } from "./widget-asset";

describe("widget asset conditional requests", () => {
  it("matches If-None-Match lists, weak tags and *", () => {
    expect(matchesEtag('"abc"', '"abc"')).toBe(true);
    expect(matchesEtag('"x", W/"abc"', '"abc"')).toBe(true);
    expect(matchesEtag("*", '"abc"')).toBe(true);
    expect(matchesEtag('"abd"', '"abc"')).toBe(false);
    expect(matchesEtag(null, '"abc"')).toBe(false);
  });
});
