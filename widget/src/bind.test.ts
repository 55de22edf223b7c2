import { describe, expect, it } from "vitest";
import { formatValue, resolve, resolveObject } from "./bind";
import { fieldPath } from "./form";

describe("bindings (VOCABULARY.md Values)", () => {
  const scope = { data: { totals: { open: 3 }, list: [1, 2] }, row: { id: "deal_1", stage: "lead" } };

  it("reads dotted paths of the named scope; literals pass through", () => {
    expect(resolve("$data.totals.open", scope)).toBe(3);
    expect(resolve("$data.list", scope)).toEqual([1, 2]);
    expect(resolve("$row.id", scope)).toBe("deal_1");
    expect(resolve("plain", scope)).toBe("plain");
    expect(resolve(42, scope)).toBe(42);
    expect(resolve(null, scope)).toBeNull();
  });

  it("$$ escapes a literal dollar", () => {
    expect(resolve("$$5 off", scope)).toBe("$5 off");
  });

  it("an unresolved path is undefined, and omitted from an input", () => {
    expect(resolve("$data.nope.deeper", scope)).toBeUndefined();
    expect(resolve("$card.id", scope)).toBeUndefined();
    expect(resolveObject({ deal_id: "$row.id", stage: "won", missing: "$row.none" }, scope)).toEqual({
      deal_id: "deal_1",
      stage: "won",
    });
  });
});

describe("formats", () => {
  it("formats numbers, money, dates and text", () => {
    expect(formatValue(1234567, "number")).toBe(new Intl.NumberFormat().format(1234567));
    expect(formatValue("1200.50", "money", "EUR")).toBe(
      new Intl.NumberFormat(undefined, { style: "currency", currency: "EUR" }).format(1200.5),
    );
    expect(formatValue("12", "money")).toContain("12");
    expect(formatValue("not a number", "money")).toBe("not a number");
    expect(formatValue(0, "date")).toBe(new Date(0).toLocaleString());
    expect(formatValue(undefined)).toBe("");
    expect(formatValue({ a: 1 })).toBe('{"a":1}');
  });
});

describe("fieldPath", () => {
  it("maps the server's param to the form's field path", () => {
    expect(fieldPath("amount")).toBe("amount");
    expect(fieldPath("input.amount")).toBe("amount");
    expect(fieldPath("lines[0].quantity")).toBe("lines.0.quantity");
  });
});
