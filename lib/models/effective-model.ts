import { MODEL_STATUS, type ModelStatus } from "@/db/enums";
import type { Model, ModelOverride } from "@/db/schema";
import type { Prices } from "./pricing";

/** A catalog entry as one company sees it: its overrides applied. */
export interface EffectiveModel {
  model: Model;
  status: ModelStatus;
  hidden: boolean;
  prices: Prices;
  overridden: boolean;
}

export function effectiveModel(model: Model, override: ModelOverride | undefined): EffectiveModel {
  let status = model.status;
  if (override?.enabled === true && status === MODEL_STATUS.disabled) status = MODEL_STATUS.active;
  if (override?.enabled === false) status = MODEL_STATUS.disabled;
  return {
    model,
    status,
    hidden: override?.hidden ?? false,
    overridden: override !== undefined,
    prices: {
      inputMicroPerM: override?.inputMicroPerM ?? model.inputMicroPerM,
      cachedInputMicroPerM: override?.cachedInputMicroPerM ?? override?.inputMicroPerM ?? model.cachedInputMicroPerM,
      outputMicroPerM: override?.outputMicroPerM ?? model.outputMicroPerM,
    },
  };
}
