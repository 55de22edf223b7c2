import { describe, expect, it } from "vitest";
import { toolArgsProblem } from "./json-schema";

describe("tool argument schemas", () => {
  it("tests each pattern with its own regular expression (Ajv keys patterns by toString)", () => {
    const schema = {
      type: "object",
      properties: {
        code: { type: "string", pattern: "^[A-Z]{3}$" },
        amount: { type: "string", pattern: "^[0-9]+\\.[0-9]{2}$" },
      },
    };
    expect(toolArgsProblem(schema, { code: "USD", amount: "10.00" })).toBeNull();
    expect(toolArgsProblem(schema, { code: "USD", amount: "10" })).toMatch(/amount/);
    expect(toolArgsProblem(schema, { code: "usd", amount: "10.00" })).toMatch(/code/);
  });
});
