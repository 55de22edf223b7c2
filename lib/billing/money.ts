/** 1 O₮ = 1,000,000 µO₮. The ledger stores integers; the API shows O₮ with up to 6 decimals. */
export const MICRO_PER_OT = 1_000_000;
/** Upper bound of one grant (1 billion O₮ = $1M) keeps every balance exact in a JS number. */
export const MAX_GRANT_MICRO = 1_000_000_000 * MICRO_PER_OT;

export function otToMicro(ot: number): number {
  if (!Number.isFinite(ot)) throw new RangeError("amount must be finite");
  return Math.round(ot * MICRO_PER_OT);
}

export function microToOt(micro: number): number {
  return micro / MICRO_PER_OT;
}
