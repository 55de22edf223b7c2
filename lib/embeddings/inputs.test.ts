import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { embeddingInputs } from "./inputs";
import { MAX_INPUT_TOKENS, MAX_INPUTS } from "./schemas";

const refusal = (input: Parameters<typeof embeddingInputs>[0]) => {
  try {
    embeddingInputs(input);
  } catch (err) {
    return err as AppError;
  }
  throw new Error("accepted");
};

describe("embedding inputs", () => {
  it("takes OpenAI's four shapes as texts or token-id arrays", () => {
    expect(embeddingInputs("hi")).toEqual({ kind: "text", texts: ["hi"] });
    expect(embeddingInputs(["a", "b"])).toEqual({ kind: "text", texts: ["a", "b"] });
    expect(embeddingInputs([1, 2])).toEqual({ kind: "tokens", ids: [[1, 2]] });
    expect(embeddingInputs([[1], [2, 3]])).toEqual({ kind: "tokens", ids: [[1], [2, 3]] });
  });

  it("refuses empty inputs and ones over the limits, naming input", () => {
    for (const bad of [
      "",
      [],
      ["a", ""],
      [[1], []],
      Array.from({ length: MAX_INPUTS + 1 }, () => "x"),
      Array.from({ length: MAX_INPUT_TOKENS + 1 }, () => 1),
      [Array.from({ length: MAX_INPUT_TOKENS + 1 }, () => 1)],
    ]) {
      const err = refusal(bad);
      expect(err).toBeInstanceOf(AppError);
      expect(err.status).toBe(400);
      expect(err.param).toBe("input");
    }
    expect(refusal(["a", ""]).message).toContain("input[1]");
    expect(embeddingInputs(Array.from({ length: MAX_INPUTS }, () => "x")).kind).toBe("text");
  });
});
