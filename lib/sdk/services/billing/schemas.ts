import { z } from "zod";
import { INVOICE_STATUSES } from "@/db/enums";
import { PageQuery } from "@/lib/pagination";
import { CURRENCY_PATTERN, DEFAULT_CURRENCY, MONEY_PATTERN } from "@/lib/sdk/money";
import type { JsonSchemaObject } from "@/lib/sdk/types";

const emptyAsUnset = (v: unknown) => (v === "" ? undefined : v);

/**
 * `billing/invoices`: newest first, `limit` 1..100 (20), `after` an invoice id, optional `status`;
 * the stats are totals by status of invoices in `currency` (default USD).
 */
export const InvoicesQuery = z.object({
  status: z.preprocess(emptyAsUnset, z.enum(INVOICE_STATUSES).optional()),
  currency: z.preprocess(
    emptyAsUnset,
    z.string().regex(new RegExp(CURRENCY_PATTERN), "must be an ISO 4217 code such as USD").default(DEFAULT_CURRENCY),
  ),
  limit: PageQuery.shape.limit,
  after: z.preprocess(emptyAsUnset, PageQuery.shape.after),
});
export type InvoicesQuery = z.infer<typeof InvoicesQuery>;

const MAX_LINE_ITEMS = 100;

export const CreateInvoiceSchema: JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["customer", "line_items"],
  properties: {
    customer: { type: "string", title: "Customer", minLength: 1, maxLength: 200 },
    currency: {
      type: "string",
      title: "Currency",
      pattern: CURRENCY_PATTERN,
      default: DEFAULT_CURRENCY,
      description: "an ISO 4217 code such as USD",
    },
    line_items: {
      type: "array",
      title: "Line items",
      minItems: 1,
      maxItems: MAX_LINE_ITEMS,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["description", "quantity", "unit_price"],
        properties: {
          description: { type: "string", title: "Description", minLength: 1, maxLength: 500 },
          quantity: { type: "integer", title: "Quantity", minimum: 1, maximum: 1_000_000 },
          unit_price: {
            type: "string",
            title: "Unit price",
            pattern: MONEY_PATTERN,
            description: 'a decimal amount with at most two decimals, e.g. "1234.50"',
          },
        },
      },
    },
  },
};
export interface CreateInvoiceInput {
  customer: string;
  currency: string;
  line_items: { description: string; quantity: number; unit_price: string }[];
}

export const MarkInvoicePaidSchema: JsonSchemaObject = {
  type: "object",
  additionalProperties: false,
  required: ["invoice_id"],
  properties: { invoice_id: { type: "string", title: "Invoice", minLength: 1, maxLength: 200 } },
};
export interface MarkInvoicePaidInput {
  invoice_id: string;
}
