import { defineAction, defineView, type SdkService } from "@/lib/sdk/types";
import { createInvoice } from "./create-invoice";
import { listInvoices } from "./list-invoices";
import { markInvoicePaid } from "./mark-invoice-paid";
import {
  CreateInvoiceSchema,
  InvoicesQuery,
  MarkInvoicePaidSchema,
  type CreateInvoiceInput,
  type MarkInvoicePaidInput,
} from "./schemas";
import { toPublicInvoice } from "./to-public-invoice";
import { invoicesDefinition } from "./views";

/** The `billing` SDK service: a company's invoices to its own customers (not the O₮ ledger of lib/billing). */
export const billing: SdkService = {
  name: "billing",
  title: "Billing",
  views: [
    defineView({
      name: "invoices",
      title: "Invoices",
      query: InvoicesQuery,
      definition: invoicesDefinition,
      actions: ["mark_invoice_paid", "create_invoice"],
      load: listInvoices,
    }),
  ],
  actions: [
    defineAction<CreateInvoiceInput>({
      name: "create_invoice",
      title: "Create invoice",
      inputSchema: CreateInvoiceSchema,
      refresh: ["invoices"],
      run: async (tx, args) => ({ result: toPublicInvoice(await createInvoice(tx, args)) }),
    }),
    defineAction<MarkInvoicePaidInput>({
      name: "mark_invoice_paid",
      title: "Mark invoice paid",
      inputSchema: MarkInvoicePaidSchema,
      refresh: ["invoices"],
      run: async (tx, { companyId, actor, input }) => ({
        result: toPublicInvoice(await markInvoicePaid(tx, { companyId, actor, invoiceId: input.invoice_id })),
      }),
    }),
  ],
};
