import { AppError } from "@/lib/errors";

/**
 * SDK money: integer minor units in the database and arithmetic, two-decimal strings on the wire
 * whatever the currency. Never a binary float: "0.10" + "0.20" is exactly "0.30".
 */
export const MONEY_PATTERN = "^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,2})?$";
const MONEY_RE = new RegExp(MONEY_PATTERN);
export const CURRENCY_PATTERN = "^[A-Z]{3}$";
export const DEFAULT_CURRENCY = "USD";

/** "1234.5" → 123450. The string has passed MONEY_PATTERN (at most 12 integer digits: exact in a double). */
export function parseMinor(amount: string, param: string): number {
  if (!MONEY_RE.test(amount))
    throw new AppError(
      "invalid_request",
      `${param}: must be a decimal amount with at most two decimals, e.g. "1234.50"`,
      { param, wireCode: "invalid_value" },
    );
  const [whole, frac = ""] = amount.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

/** 123450 → "1234.50"; negative amounts keep their sign. */
export function formatMinor(minor: number | bigint): string {
  const v = BigInt(minor);
  const sign = v < 0n ? "-" : "";
  const abs = v < 0n ? -v : v;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`;
}

/** Σ quantity × unit price in minor units, exact (BigInt); above 2^53 − 1 it cannot be stored exactly: 400. */
export function lineTotalMinor(
  lines: { quantity: number; unitPriceMinor: number }[],
  param: string,
): { amounts: number[]; total: number } {
  let total = 0n;
  const amounts = lines.map((l) => {
    const amount = BigInt(l.quantity) * BigInt(l.unitPriceMinor);
    total += amount;
    return amount;
  });
  if (total > BigInt(Number.MAX_SAFE_INTEGER))
    throw new AppError("invalid_request", `${param}: the invoice total is too large`, {
      param,
      wireCode: "invalid_value",
    });
  return { amounts: amounts.map(Number), total: Number(total) };
}
