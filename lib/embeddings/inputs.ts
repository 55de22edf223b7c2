import { AppError } from "@/lib/errors";
import { MAX_INPUT_TOKENS, MAX_INPUTS, type EmbeddingsInput } from "./schemas";

/** A request's inputs, one shape for all four of OpenAI's. */
export type EmbeddingInputs = { kind: "text"; texts: string[] } | { kind: "tokens"; ids: number[][] };

const invalid = (message: string) =>
  new AppError("invalid_request", message, { param: "input", wireCode: "invalid_value" });

/** @throws 400 naming `input`: no inputs, too many, an empty one, or too many token ids in one. */
export function embeddingInputs(input: EmbeddingsInput["input"]): EmbeddingInputs {
  if (typeof input === "string") return { kind: "text", texts: [checkText(input, 0)] };
  if (input.length === 0) throw invalid("input must not be empty");
  const first = input[0];
  if (typeof first === "number") return { kind: "tokens", ids: [checkIds(input as number[], 0)] };
  if (input.length > MAX_INPUTS)
    throw invalid(`input has ${input.length} items; at most ${MAX_INPUTS} inputs per request`);
  if (typeof first === "string") return { kind: "text", texts: (input as string[]).map(checkText) };
  return { kind: "tokens", ids: (input as number[][]).map(checkIds) };
}

function checkText(text: string, i: number): string {
  if (text.length === 0) throw invalid(`input[${i}] is an empty string`);
  return text;
}

function checkIds(ids: number[], i: number): number[] {
  if (ids.length === 0) throw invalid(`input[${i}] is an empty token array`);
  if (ids.length > MAX_INPUT_TOKENS)
    throw invalid(`input[${i}] has ${ids.length} tokens; at most ${MAX_INPUT_TOKENS} per input`);
  return ids;
}

export const inputCount = (inputs: EmbeddingInputs): number =>
  inputs.kind === "text" ? inputs.texts.length : inputs.ids.length;
