import type { SdkInvoice } from "@/db/schema";
import { formatMinor } from "@/lib/sdk/money";
import { toUnix } from "@/lib/time";

/** An invoice on the wire: amounts as two-decimal strings, times as Unix seconds (CONTRACT 4). */
export function toPublicInvoice(i: SdkInvoice) {
  return {
    id: i.id,
    object: "billing.invoice" as const,
    customer: i.customer,
    currency: i.currency,
    total: formatMinor(i.totalMinor),
    line_items: i.lineItems.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      unit_price: formatMinor(l.unit_price_minor),
      amount: formatMinor(l.amount_minor),
    })),
    status: i.status,
    created_at: toUnix(i.createdAt),
    created_by: i.createdBy,
    paid_at: i.paidAt ? toUnix(i.paidAt) : null,
    paid_by: i.paidBy,
  };
}
