import { describe, expect, it } from "vitest";
import { compareVerdicts, goalKey } from "./compare-verdicts";

describe("goalKey", () => {
  it("drops the run's numbers but keeps what names the goal", () => {
    expect(goalKey("responses: json req/s vs chat completions @32c, in turns [87.7, 91.3, 92.4]")).toBe(
      "responses: json req/s vs chat completions @32c, in turns",
    );
    expect(
      goalKey("runs: json added p50 @1c (run − direct) (repetitions: 2.223, 2.024; median of 5 undisturbed)"),
    ).toBe("runs: json added p50 @1c (run − direct)");
    expect(goalKey("json: added p50 @1c (ours − direct)")).toBe("json: added p50 @1c (ours − direct)");
  });
});

describe("compareVerdicts", () => {
  it("pairs each latest goal with the previous run's value of the same goal, null when it had none", () => {
    const rows = compareVerdicts(
      [
        { name: "metrics on: cost (repetitions: 4.1, 3.6)", value: 3.6, unit: "%" },
        { name: "gone goal", value: 1 },
      ],
      [
        { name: "metrics on: cost (repetitions: 2.0, 2.5)", value: 2.5, unit: "%", target: "<= 3 %", result: "PASS" },
        { name: "new goal", value: 7, target: "reported" },
      ],
    );
    expect(rows).toEqual([
      { goal: "metrics on: cost", unit: "%", target: "<= 3 %", previous: 3.6, latest: 2.5, result: "PASS" },
      { goal: "new goal", unit: "", target: "reported", previous: null, latest: 7, result: "" },
    ]);
  });
});
