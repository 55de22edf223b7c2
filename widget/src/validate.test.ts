import { describe, expect, it } from "vitest";
import { validate, type Schema } from "./validate";

const createDeal: Schema = {
  type: "object",
  additionalProperties: false,
  required: ["title", "amount"],
  properties: {
    title: { type: "string", minLength: 1, maxLength: 10 },
    amount: { type: "string", pattern: "^\\d+(\\.\\d{1,2})?$" },
    stage: { type: "string", enum: ["lead", "won"] },
    probability: { type: "integer", minimum: 0, maximum: 100 },
    close_date: { type: "string", format: "date" },
    lines: {
      type: "array",
      minItems: 1,
      items: { type: "object", required: ["qty"], properties: { qty: { type: "number", exclusiveMinimum: 0 } } },
    },
  },
};

const paths = (errors: { path: string }[]) => errors.map((e) => e.path);

describe("validate (the subset the built-in schemas use)", () => {
  it("accepts a valid input", () => {
    expect(
      validate(createDeal, {
        title: "Acme",
        amount: "12.50",
        stage: "won",
        probability: 40,
        close_date: "2026-01-31",
        lines: [{ qty: 2 }],
      }),
    ).toEqual([]);
  });

  it("names each failing field by its dotted path", () => {
    const errors = validate(createDeal, {
      title: "",
      amount: "12.5.0",
      stage: "lost",
      probability: 40.5,
      close_date: "31/01/2026",
      lines: [{ qty: 0 }, {}],
      extra: 1,
    });
    expect(paths(errors).sort()).toEqual(
      ["amount", "close_date", "extra", "lines.0.qty", "lines.1.qty", "probability", "stage", "title"].sort(),
    );
    expect(errors.find((e) => e.path === "title")!.message).toBe("Required");
  });

  it("reports missing required fields, bounds, lengths and item counts", () => {
    expect(paths(validate(createDeal, {}))).toEqual(["title", "amount"]);
    expect(
      validate(createDeal, { title: "x".repeat(11), amount: "1", probability: 101, lines: [] }).map((e) => e.message),
    ).toEqual(["Must be at most 10 characters", "Must be at most 100", "Needs at least 1 item"]);
  });

  it("checks types, type lists and const", () => {
    expect(validate({ type: "object" }, [])).toHaveLength(1);
    expect(validate({ type: ["string", "null"] }, null)).toEqual([]);
    expect(validate({ type: "number" }, Number.NaN)).toHaveLength(1);
    expect(validate({ const: "a" }, "b")).toHaveLength(1);
  });

  it("leaves a pattern the browser cannot compile to the server", () => {
    expect(validate({ type: "string", pattern: "(?<" }, "x")).toEqual([]);
  });
});
