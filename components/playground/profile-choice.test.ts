import { describe, expect, it } from "vitest";
import { profileChoice, profileOptions } from "./profile-choice";

const support = { id: "11111111-1111-4111-8111-111111111111", name: "Support", is_default: true };
const calc = { id: "22222222-2222-4222-8222-222222222222", name: "Calculator", is_default: false };

describe("profileOptions", () => {
  it("offers none, the company default by name, then every profile", () => {
    expect(profileOptions([support, calc]).map((o) => o.label)).toEqual([
      "None",
      "Company default (Support)",
      "Calculator",
      "Support",
    ]);
  });

  it("has no default entry when the company has no default profile", () => {
    expect(profileOptions([calc]).map((o) => o.value)).toEqual(["none", `profile:${calc.id}`]);
  });
});

describe("profileChoice", () => {
  it("leaves profile_ids out for the default, sends [] for none and the id for a profile", () => {
    expect(profileChoice("default", [support, calc])).toEqual({ label: "Company default (Support)" });
    expect(profileChoice("none", [support, calc])).toEqual({ label: "None", profileIds: [] });
    expect(profileChoice(`profile:${calc.id}`, [support, calc])).toEqual({
      label: "Calculator",
      profileIds: [calc.id],
    });
  });

  it("falls back to none, never to the default, when the picked profile is gone", () => {
    expect(profileChoice(`profile:${calc.id}`, [support])).toEqual({ label: "None", profileIds: [] });
    expect(profileChoice("default", [calc])).toEqual({ label: "None", profileIds: [] });
  });
});
