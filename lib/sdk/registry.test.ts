import { describe, expect, it } from "vitest";
import { formatMinor, lineTotalMinor, parseMinor } from "./money";
import { registryProblems, SERVICES } from "./registry";
import type { SdkService } from "./types";
import { validateActionInput } from "./validate-input";
import { definitionVersion } from "./version";

const action = (service: string, name: string) =>
  SERVICES.find((s) => s.name === service)!.actions.find((a) => a.name === name)!;

function problemOf(fn: () => unknown): { param: string | null; message: string } | null {
  try {
    fn();
    return null;
  } catch (err) {
    return { param: (err as { param: string | null }).param, message: (err as Error).message };
  }
}

describe("SDK registry", () => {
  it("is consistent: views list and call only their service's actions, refresh names views, schemas compile", () => {
    expect(registryProblems()).toEqual([]);
    expect(SERVICES.map((s) => s.name)).toEqual(["crm", "billing"]);
  });

  it("reports a view calling an action it does not list, an unknown refresh and an unknown action", () => {
    const crm = SERVICES[0]!;
    const broken: SdkService = {
      ...crm,
      views: [{ ...crm.views[1]!, actions: ["nope"] }],
      actions: [{ ...crm.actions[0]!, refresh: ["ghost"] }],
    };
    const problems = registryProblems([broken]).join("\n");
    expect(problems).toContain("crm/deals lists unknown action nope");
    expect(problems).toContain("crm/deals calls update_deal_stage without listing it");
    expect(problems).toContain("crm.create_deal refreshes unknown view ghost");
  });
});

describe("view version", () => {
  const def = { type: "page", title: "A", children: [{ type: "text", value: "x" }] };
  it("is a positive 31-bit integer, independent of key order", () => {
    const v = definitionVersion(def);
    expect(Number.isInteger(v) && v > 0 && v < 2 ** 31).toBe(true);
    expect(definitionVersion({ children: [{ value: "x", type: "text" }], title: "A", type: "page" })).toBe(v);
  });
  it("changes when the definition changes", () => {
    expect(definitionVersion({ ...def, title: "B" })).not.toBe(definitionVersion(def));
    for (const s of SERVICES)
      for (const v of s.views) {
        const changed = {
          ...v.definition,
          children: [...(v.definition.children as unknown[]), { type: "empty", message: "x" }],
        };
        expect(definitionVersion(changed)).not.toBe(definitionVersion(v.definition));
      }
  });
});

describe("money", () => {
  it("parses and formats two-decimal strings exactly", () => {
    expect(parseMinor("1234.5", "p")).toBe(123450);
    expect(parseMinor("0.07", "p")).toBe(7);
    expect(parseMinor("999999999999.99", "p")).toBe(99999999999999);
    expect(formatMinor(123450)).toBe("1234.50");
    expect(formatMinor(7)).toBe("0.07");
    expect(formatMinor(-5)).toBe("-0.05");
    expect(formatMinor(10n ** 20n)).toBe("1000000000000000000.00");
    for (const bad of ["1.234", "-1", "01", "1e3", " 1", "1.", ".5"])
      expect(problemOf(() => parseMinor(bad, "input.amount"))?.param).toBe("input.amount");
  });
  it("totals line items without floating point, refusing totals beyond 2^53", () => {
    expect(
      lineTotalMinor(
        [
          { quantity: 3, unitPriceMinor: 10 },
          { quantity: 1, unitPriceMinor: 20 },
        ],
        "p",
      ),
    ).toEqual({ amounts: [30, 20], total: 50 });
    expect(
      problemOf(() => lineTotalMinor([{ quantity: 1_000_000, unitPriceMinor: 99999999999999 }], "input.line_items"))
        ?.param,
    ).toBe("input.line_items");
  });
});

describe("action input validation", () => {
  const invoice = action("billing", "create_invoice");
  const ok = { customer: "ACME", line_items: [{ description: "Work", quantity: 2, unit_price: "10.00" }] };

  it("applies defaults to a copy", () => {
    const input = structuredClone(ok);
    expect(validateActionInput(invoice, input)).toEqual({ ...ok, currency: "USD" });
    expect(input).toEqual(ok);
  });

  it("names the offending field: input.<path>, array indexes as numbers", () => {
    const cases: [unknown, string][] = [
      [{ line_items: ok.line_items }, "input.customer"],
      [{ ...ok, extra: 1 }, "input.extra"],
      [{ ...ok, line_items: [{ ...ok.line_items[0], quantity: 0 }] }, "input.line_items.0.quantity"],
      [
        { ...ok, line_items: [ok.line_items[0], { ...ok.line_items[0], quantity: 1.5 }] },
        "input.line_items.1.quantity",
      ],
      [{ ...ok, line_items: [{ description: "x", quantity: 1 }] }, "input.line_items.0.unit_price"],
      [{ ...ok, line_items: [{ ...ok.line_items[0], unit_price: "1.234" }] }, "input.line_items.0.unit_price"],
      [{ ...ok, line_items: [{ ...ok.line_items[0], colour: "red" }] }, "input.line_items.0.colour"],
      [{ ...ok, line_items: [] }, "input.line_items"],
      [{ ...ok, currency: "usd" }, "input.currency"],
      [{ ...ok, customer: "a\u0000b" }, "input.customer"],
    ];
    for (const [input, param] of cases) {
      expect(
        problemOf(() => validateActionInput(invoice, input as Record<string, unknown>)),
        param,
      ).toMatchObject({ param, message: expect.stringContaining(param) });
    }
  });

  it("quotes the description of a failed pattern", () => {
    const p = problemOf(() => validateActionInput(action("crm", "create_deal"), { title: "T", amount: "12,50" }));
    expect(p).toEqual({
      param: "input.amount",
      message: 'input.amount: must be a decimal amount with at most two decimals, e.g. "1234.50"',
    });
  });
});
