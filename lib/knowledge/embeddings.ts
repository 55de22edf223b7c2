import "server-only";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { providerGroup } from "@/lib/models/provider-groups";
import { TRACING } from "@/lib/observability/tracing/tracer";
import { traceEmbeddings } from "@/lib/observability/tracing/upstream-span";
import { postJson } from "@/lib/providers/http";
import { embedOffline, normalize, OFFLINE_DIM, OFFLINE_MODEL } from "./embed/offline";
import { embeddingMicroPerM } from "./embed/pricing";

interface Embedding {
  vectors: Float32Array[];
  /** Input tokens the provider reported (summed over its calls); null when it reported none. */
  tokens: number | null;
}

export interface Embedder {
  /** Stored with each vector: vectors of different models are never compared. */
  model: string;
  /** µO₮ per million input tokens, billed to the company; null: free (the offline embedder runs here). */
  microPerM: number | null;
  embed(texts: string[], signal?: AbortSignal): Promise<Embedding>;
}

const offline: Embedder = {
  model: OFFLINE_MODEL,
  microPerM: null,
  embed: async (texts) => ({ vectors: texts.map(embedOffline), tokens: null }),
};

/** Inputs per `/embeddings` call (OpenAI accepts up to 2048). */
const BATCH = 256;
/** Requested `dimensions` for models that take it: the search cache holds float32 vectors per company. */
const PROVIDER_DIM = 512;

interface EmbeddingsCall {
  group: { id: string; baseUrl: string; apiKey: string };
  request: { model: string; input: string[]; dimensions?: number };
  signal: AbortSignal;
}

/** One request to the provider's `/embeddings`, with the input tokens it reported (null: none, or not a count). */
async function postEmbeddingsOnce({ group, request, signal }: EmbeddingsCall) {
  const res = await postJson({
    provider: group.id,
    url: `${group.baseUrl}/embeddings`,
    headers: { authorization: `Bearer ${group.apiKey}` },
    body: request,
    signal,
    secrets: [group.apiKey],
  });
  const body = (await res.body.json()) as {
    data?: { index: number; embedding: number[] }[];
    usage?: { prompt_tokens?: unknown };
  };
  const used = body.usage?.prompt_tokens;
  return { body, promptTokens: typeof used === "number" && Number.isSafeInteger(used) && used >= 0 ? used : null };
}

/** Traced, each request is a GenAI client span. */
const postEmbeddings: typeof postEmbeddingsOnce = TRACING
  ? (call) => traceEmbeddings(call.group, call.request, () => postEmbeddingsOnce(call))
  : postEmbeddingsOnce;

/**
 * A provider group's OpenAI-compatible `/embeddings` with its base URL and key, billed at
 * `microPerM`.
 * @throws AppError upstream_error when the group is unknown or has no key, or the model's price is
 * unknown.
 * @internal
 */
export function providerEmbedder(
  spec: string,
  group = providerGroup(spec.split(":")[0]!),
  microPerM = embeddingMicroPerM(spec.slice(spec.indexOf(":") + 1), env.EMBEDDING_PRICE_PER_M),
): Embedder {
  const [groupId, ...rest] = spec.split(":");
  const model = rest.join(":");
  if (!group?.baseUrl || !group.apiKey)
    throw new AppError(
      "upstream_error",
      `EMBEDDING_MODEL names provider group ${groupId}, which has no base URL or key`,
    );
  if (microPerM === null)
    throw new AppError(
      "upstream_error",
      `EMBEDDING_MODEL names ${model}, whose price is unknown: set EMBEDDING_PRICE_PER_M`,
    );
  const { baseUrl, apiKey } = group;
  const dimensions = model.startsWith("text-embedding-3") ? { dimensions: PROVIDER_DIM } : {};
  return {
    model: spec,
    microPerM,
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      // Null as soon as one call reports no usage: the caller then bills its own count of every input.
      let tokens: number | null = 0;
      for (let i = 0; i < texts.length; i += BATCH) {
        const { body, promptTokens } = await postEmbeddings({
          group: { id: groupId!, baseUrl, apiKey },
          request: { model, input: texts.slice(i, i + BATCH), ...dimensions },
          signal: signal ?? AbortSignal.timeout(env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS),
        });
        tokens = tokens !== null && promptTokens !== null ? tokens + promptTokens : null;
        const data = [...(body.data ?? [])].sort((a, b) => a.index - b.index);
        if (data.length !== Math.min(BATCH, texts.length - i))
          throw new AppError(
            "upstream_error",
            `${groupId} returned ${data.length} embeddings for ${texts.length - i} inputs`,
          );
        for (const d of data) out.push(normalize(Float32Array.from(d.embedding)));
      }
      return { vectors: out, tokens };
    },
  };
}

let current: Embedder | undefined;

/** The configured embedder: EMBEDDING_MODEL's provider, else the offline default (OFFLINE_DIM dims). */
export function embedder(): Embedder {
  return (current ??= env.EMBEDDING_MODEL ? providerEmbedder(env.EMBEDDING_MODEL) : offline);
}

export { OFFLINE_DIM, OFFLINE_MODEL };

/** Float32 vectors as little-endian bytes (the `embedding` column). */
export function vectorToBytes(v: Float32Array): Buffer {
  const b = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i]!, i * 4);
  return b;
}
