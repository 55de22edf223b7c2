import "server-only";
import type { ProviderGroupConfig } from "../config";
import { bodyError, postJson } from "../http";
import { UpstreamError } from "../types";

export interface EmbeddingRequest {
  model: string;
  /** Texts, or token-id arrays: both as OpenAI's `input` takes them. */
  input: string[] | number[][];
  dimensions?: number;
  user?: string;
}

export interface EmbeddingResult {
  /** One vector per input, in input order, as the provider returned it (not normalised again). */
  vectors: number[][];
  /** Input tokens the provider reported; null when it reported none. */
  promptTokens: number | null;
}

interface WireEmbeddings {
  data?: { index?: unknown; embedding?: unknown }[];
  usage?: { prompt_tokens?: unknown };
}

/**
 * The provider's `/embeddings` (OpenAI's wire shape, which OpenAI, Mistral and other OpenAI-compatible
 * servers speak). Always asks for floats: the gateway encodes base64 itself, so every provider
 * answers alike. Errors are UpstreamErrors, like the chat adapter's.
 */
export async function embedOpenAi(
  group: ProviderGroupConfig,
  req: EmbeddingRequest,
  signal: AbortSignal,
): Promise<EmbeddingResult> {
  const res = await postJson({
    provider: group.id,
    url: `${group.baseUrl}/embeddings`,
    headers: { authorization: `Bearer ${group.apiKey}` },
    body: { ...req, encoding_format: "float" },
    signal,
    secrets: [group.apiKey],
  });
  let body: WireEmbeddings;
  try {
    body = (await res.body.json()) as WireEmbeddings;
  } catch (err) {
    throw bodyError(group.id, err);
  }
  return { vectors: wireVectors(group.id, body, req.input.length), promptTokens: wireTokens(body) };
}

function wireVectors(provider: string, body: WireEmbeddings, count: number): number[][] {
  const out = new Array<number[] | undefined>(count);
  for (const d of Array.isArray(body.data) ? body.data : []) {
    const i = d.index;
    const v = d.embedding;
    if (typeof i === "number" && Number.isInteger(i) && i >= 0 && i < count && Array.isArray(v) && v.every(isNum))
      out[i] = v;
  }
  const missing = out.findIndex((v) => v === undefined);
  if (missing !== -1)
    throw new UpstreamError(provider, null, `${provider} returned no embedding for input ${missing}`, false);
  return out as number[][];
}

const isNum = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);

function wireTokens(body: WireEmbeddings): number | null {
  const n = body.usage?.prompt_tokens;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}
