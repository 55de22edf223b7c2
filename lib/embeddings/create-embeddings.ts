import "server-only";
import { LEDGER_KIND } from "@/db/enums";
import type { AuthContext } from "@/lib/auth/auth-context";
import { billCall, endHold } from "@/lib/billing";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { EMBEDDINGS_SOURCE } from "@/lib/knowledge/embed/bill-embedding";
import { embeddingCostMicro, holdEmbedding } from "@/lib/knowledge/embed/hold-embedding";
import { embeddingSpec, MODEL_KIND, resolveModel, type EmbeddingSpec, type ResolvedModel } from "@/lib/models";
import { countEmbeddingBill } from "@/lib/observability/metrics/record";
import { embedModel } from "@/lib/providers/call-model";
import { countInputTokens } from "./count-tokens";
import { embedLocal } from "./embed-local";
import { embeddingInputs, inputCount, type EmbeddingInputs } from "./inputs";
import { ENCODING_FORMAT, type EmbeddingsInput } from "./schemas";
import { embeddingListStream } from "./to-wire";

export interface EmbeddingsCall {
  auth: AuthContext;
  input: EmbeddingsInput;
  /** Becomes the ledger entry's `reference_id`: the `x-request-id` the client got. */
  requestId: string;
}

/** @throws 400 naming `dimensions` when the model cannot shorten its vectors or is asked for more than it has. */
function checkDimensions(dimensions: number | null | undefined, spec: EmbeddingSpec, slug: string): void {
  if (dimensions == null) return;
  if (!spec.supportsDimensions)
    throw new AppError("invalid_request", `The model '${slug}' does not support the dimensions parameter`, {
      param: "dimensions",
      wireCode: "invalid_value",
    });
  if (dimensions > spec.dimensions)
    throw new AppError(
      "invalid_request",
      `dimensions must be at most ${spec.dimensions} for the model '${slug}' (got ${dimensions})`,
      { param: "dimensions", wireCode: "invalid_value" },
    );
}

async function embed(model: ResolvedModel, inputs: EmbeddingInputs, input: EmbeddingsInput) {
  if (model.group.protocol === "local")
    return { vectors: await embedLocal(inputs, input.dimensions), promptTokens: null };
  // Not tied to the client's connection: once sent, the provider bills us, so the call is seen
  // through and billed (undici's connect, first-byte and idle timeouts bound it).
  return embedModel(
    model,
    {
      input: inputs.kind === "text" ? inputs.texts : inputs.ids,
      ...(input.dimensions != null ? { dimensions: input.dimensions } : {}),
      ...(input.user != null ? { user: input.user } : {}),
    },
    { signal: new AbortController().signal },
  );
}

/**
 * POST /v1/embeddings: holds the inputs' worst-case cost (402 before any provider call), embeds,
 * and bills the tokens once as a `usage` entry at the model's input price; a failed call releases
 * its hold and is not billed.
 * @throws 404 model_not_found; 400 for a chat model, a bad input or `dimensions`; 402; 502 upstream_error.
 */
export async function createEmbeddings(call: EmbeddingsCall) {
  const { auth, input } = call;
  const inputs = embeddingInputs(input.input);
  const model = await resolveModel({ companyId: auth.companyId, slug: input.model, kind: MODEL_KIND.embedding });
  checkDimensions(input.dimensions, embeddingSpec(model.slug)!, model.slug);
  const counts = await countInputTokens(inputs, model.model.contextWindow);
  const counted = counts.reduce((a, b) => a + b, 0);
  const price = model.prices.inputMicroPerM;
  const hold = await holdEmbedding(auth.companyId, price, counted);
  let drawn = 0;
  try {
    const result = await embed(model, inputs, input);
    const promptTokens = result.promptTokens ?? counted;
    const costMicro = embeddingCostMicro(price, promptTokens);
    const billed = await billCall({
      companyId: auth.companyId,
      costMicro,
      billable: true,
      hold,
      entry: {
        id: newId("ledger"),
        kind: LEDGER_KIND.usage,
        source: EMBEDDINGS_SOURCE,
        model: model.slug,
        promptTokens,
        completionTokens: 0,
        referenceId: call.requestId,
        metadata: {
          purpose: "api",
          inputs: inputCount(inputs),
          ...(input.dimensions != null ? { dimensions: input.dimensions } : {}),
        },
      },
    });
    drawn = billed.drawnMicro;
    if (!billed.already) countEmbeddingBill(model.slug, promptTokens, billed.chargedMicro ?? costMicro);
    return embeddingListStream({
      model: model.slug,
      vectors: result.vectors,
      format: input.encoding_format ?? ENCODING_FORMAT.float,
      promptTokens,
    });
  } finally {
    endHold(hold, drawn);
  }
}
