import { z } from "zod";

/** Inputs per request, as OpenAI allows. */
export const MAX_INPUTS = 2048;
/** Tokens per input: OpenAI's 8,192; a model whose context window is smaller (8,191) takes that. */
export const MAX_INPUT_TOKENS = 8192;
/** Tokens in one request, summed over its inputs, as OpenAI allows. */
export const MAX_REQUEST_TOKENS = 300_000;
/** A request of MAX_REQUEST_TOKENS fits, as text or as token ids. */
export const EMBEDDINGS_BODY_LIMIT = 4 * 1024 * 1024;

export const ENCODING_FORMAT = { float: "float", base64: "base64" } as const;
const ENCODING_FORMATS = Object.values(ENCODING_FORMAT) as [EncodingFormat, ...EncodingFormat[]];
export type EncodingFormat = (typeof ENCODING_FORMAT)[keyof typeof ENCODING_FORMAT];

const TokenId = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);
const INPUT_SHAPES =
  "input must be a string, an array of strings, an array of token ids, or an array of token-id arrays";

/**
 * OpenAI's `input`: text or token ids, one input or many. Types only: counts and sizes are checked
 * by embeddingInputs, which names what is wrong.
 */
const Input = z.union([z.string(), z.array(z.string()), z.array(TokenId), z.array(z.array(TokenId))], {
  error: INPUT_SHAPES,
});

/** POST /v1/embeddings, OpenAI's fields; unknown fields are refused as OpenAI does. */
export const EmbeddingsInput = z.strictObject({
  model: z.string().min(1).max(200),
  input: Input,
  encoding_format: z.enum(ENCODING_FORMATS).nullish(),
  dimensions: z.number().int().min(1).nullish(),
  user: z.string().max(256).nullish(),
});
export type EmbeddingsInput = z.infer<typeof EmbeddingsInput>;
