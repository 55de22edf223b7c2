import { describe, expect, it } from "vitest";
import { microToOt, otToMicro } from "./money";
import { usageCostMicro } from "./rates";

describe("O₮ arithmetic", () => {
  it("converts exactly at 6 decimals", () => {
    expect(otToMicro(1)).toBe(1_000_000);
    expect(otToMicro(0.000001)).toBe(1);
    expect(otToMicro(0.1 + 0.2)).toBe(300_000);
    expect(microToOt(1_234_567)).toBe(1.234567);
  });

  it("prices usage events per SPEC", () => {
    expect(usageCostMicro("voice_call", 1)).toBe(1_000_000);
    expect(usageCostMicro("voice_call", 12.5)).toBe(12_500_000);
    expect(usageCostMicro("whisper", 10)).toBe(1_000_000);
    expect(usageCostMicro("whisper", 0.35)).toBe(35_000);
    expect(usageCostMicro("whisper", 0.0000049)).toBe(0);
  });

  it("refuses non-finite amounts", () => {
    expect(() => otToMicro(Number.NaN)).toThrow();
  });
});
