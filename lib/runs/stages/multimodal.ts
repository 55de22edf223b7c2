import { AppError } from "@/lib/errors";
import { countImages } from "@/lib/providers/tokens";
import type { Stage } from "../context";

/**
 * Image parts (SPEC rule 2). Models that take images receive them as they are. For the others the
 * vision/OCR pre-pass of the runs issue will turn images into text; until then such a call is a
 * clear 400 rather than images silently dropped.
 */
export const multimodalStage: Stage = {
  name: "multimodal",
  async run(ctx) {
    const images = ctx.messages.reduce((n, m) => n + countImages(m.content), 0);
    if (images > 0 && !ctx.model.model.supportsImages) {
      throw new AppError("invalid_request", `The model '${ctx.requestedModel}' does not accept images; choose a model whose modalities include "image".`, {
        param: "messages",
        wireCode: "model_not_multimodal",
      });
    }
  },
};
