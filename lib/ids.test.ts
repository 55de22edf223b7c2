import { describe, expect, it } from "vitest";
import { newId, randomBase62 } from "./ids";

describe("ids", () => {
  it("mints prefixed base62 ids that do not repeat", () => {
    const ids = new Set(Array.from({ length: 5000 }, () => newId("key")));
    expect(ids.size).toBe(5000);
    for (const id of [...ids].slice(0, 50)) expect(id).toMatch(/^key_[0-9A-Za-z]{22}$/);
  });

  it("uses every base62 character (pool refills across calls)", () => {
    const seen = new Set(randomBase62(20_000));
    expect(seen.size).toBe(62);
  });
});
