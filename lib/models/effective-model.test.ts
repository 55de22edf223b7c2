import { describe, expect, it } from "vitest";
import type { Model, ModelOverride, ModelPrice } from "@/db/schema";
import { effectiveModel } from "./effective-model";
import { worstCaseMicro } from "./pricing";

const model = {
  slug: "gpt-5",
  status: "active",
  inputMicroPerM: 1_250_000_000,
  cachedInputMicroPerM: 125_000_000,
  outputMicroPerM: 10_000_000_000,
} as Model;
const override = {
  companyId: "co_a",
  slug: "gpt-5",
  hidden: true,
  enabled: null,
  updatedAt: new Date(),
} satisfies ModelOverride;
const price = {
  companyId: "co_a",
  slug: "gpt-5",
  inputMicroPerM: 2_000_000_000,
  cachedInputMicroPerM: 0,
  outputMicroPerM: 20_000_000_000,
  updatedAt: new Date(),
} satisfies ModelPrice;

describe("effective model prices", () => {
  it("are the catalog's unless the operator priced the slug for the company; a company override never changes them", () => {
    const catalog = {
      inputMicroPerM: 1_250_000_000,
      cachedInputMicroPerM: 125_000_000,
      outputMicroPerM: 10_000_000_000,
    };
    expect(effectiveModel(model, undefined, undefined)).toMatchObject({
      prices: catalog,
      operatorPriced: false,
      overridden: false,
    });
    expect(effectiveModel(model, override, undefined)).toMatchObject({
      prices: catalog,
      hidden: true,
      overridden: true,
      operatorPriced: false,
    });
    const priced = effectiveModel(model, override, price);
    expect(priced).toMatchObject({
      prices: { inputMicroPerM: 2_000_000_000, cachedInputMicroPerM: 0, outputMicroPerM: 20_000_000_000 },
      operatorPriced: true,
      hidden: true,
    });
    // The credit hold reads the same prices: 1000 input + 100 output tokens at the operator's price.
    expect(worstCaseMicro(1000, 100, priced.prices)).toBe(2_000_000 + 2_000_000);
  });
});
