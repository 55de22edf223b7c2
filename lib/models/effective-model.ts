import { MODEL_STATUS, type ModelStatus } from "@/db/enums";
import type { Model, ModelOverride, ModelPrice } from "@/db/schema";
import type { Prices } from "./pricing";

/** A catalog entry as one company sees it: its admin's overrides and the operator's price applied. */
export interface EffectiveModel {
  model: Model;
  status: ModelStatus;
  hidden: boolean;
  /** What calls are held and billed at: the operator's price for the company, else the catalog's. */
  prices: Prices;
  /** The company's admin changed visibility or status. */
  overridden: boolean;
  /** The operator set this company's price (CLI `model price`). */
  operatorPriced: boolean;
}

export function effectiveModel(
  model: Model,
  override: ModelOverride | undefined,
  price: ModelPrice | undefined,
): EffectiveModel {
  let status = model.status;
  if (override?.enabled === true && status === MODEL_STATUS.disabled) status = MODEL_STATUS.active;
  if (override?.enabled === false) status = MODEL_STATUS.disabled;
  const source = price ?? model;
  return {
    model,
    status,
    hidden: override?.hidden ?? false,
    overridden: override !== undefined,
    operatorPriced: price !== undefined,
    prices: {
      inputMicroPerM: source.inputMicroPerM,
      cachedInputMicroPerM: source.cachedInputMicroPerM,
      outputMicroPerM: source.outputMicroPerM,
    },
  };
}
