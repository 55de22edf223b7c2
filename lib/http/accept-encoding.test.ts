import { describe, expect, it } from "vitest";
import { pickContentCoding } from "./accept-encoding";

describe("pickContentCoding", () => {
  it("sends identity without the header or with an empty one", () => {
    expect(pickContentCoding(null)).toBe("identity");
    expect(pickContentCoding("")).toBe("identity");
  });

  it("prefers br over gzip when both are accepted alike (browsers send both)", () => {
    expect(pickContentCoding("gzip, deflate, br, zstd")).toBe("br");
    expect(pickContentCoding("gzip, br")).toBe("br");
  });

  it("follows the client's q-values", () => {
    expect(pickContentCoding("br;q=0.5, gzip")).toBe("gzip");
    expect(pickContentCoding("br;q=0.9, gzip;q=0.8")).toBe("br");
    expect(pickContentCoding("gzip;q=0, br;q=0")).toBe("identity");
    expect(pickContentCoding("gzip")).toBe("gzip");
    expect(pickContentCoding("deflate")).toBe("identity");
    expect(pickContentCoding("GZIP; Q=1")).toBe("gzip");
  });

  it("reads * as every coding not listed", () => {
    expect(pickContentCoding("*")).toBe("br");
    expect(pickContentCoding("br;q=0, *")).toBe("gzip");
    expect(pickContentCoding("*;q=0.1, identity")).toBe("identity");
  });

  it("falls back to identity when everything offered is refused, and treats a malformed q as a refusal", () => {
    expect(pickContentCoding("identity;q=0")).toBe("identity");
    expect(pickContentCoding("*;q=0")).toBe("identity");
    expect(pickContentCoding("br;q=abc, gzip;q=0.3")).toBe("gzip");
  });

  it("limits the choice to what is offered", () => {
    expect(pickContentCoding("br, gzip", ["gzip", "identity"])).toBe("gzip");
  });
});
