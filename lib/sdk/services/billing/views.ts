import type { SduiNode } from "@/lib/sdk/types";

/** Definitions in the vocabulary of widget/VOCABULARY.md (version 1). */

export const invoicesDefinition: SduiNode = {
  type: "page",
  title: "Invoices",
  children: [
    {
      type: "stack",
      direction: "horizontal",
      children: [
        { type: "stat", label: "Open", value: "$data.stats.open_total", format: "money", currency: "$data.currency" },
        { type: "stat", label: "Paid", value: "$data.stats.paid_total", format: "money", currency: "$data.currency" },
        { type: "stat", label: "Open invoices", value: "$data.stats.open_count", format: "number" },
      ],
    },
    {
      type: "filter",
      param: "status",
      label: "Status",
      options: [
        { value: "", label: "All" },
        { value: "open", label: "Open" },
        { value: "paid", label: "Paid" },
      ],
    },
    {
      type: "table",
      rows: "$data.invoices",
      columns: [
        { key: "id", label: "Invoice" },
        { key: "customer", label: "Customer" },
        { key: "total", label: "Total", format: "money", currency: "$row.currency" },
        { key: "status", label: "Status", format: "badge", tones: { open: "warning", paid: "success" } },
      ],
      row_actions: [
        {
          type: "button",
          label: "Mark paid",
          action: "mark_invoice_paid",
          input: { invoice_id: "$row.id" },
          confirm: "Mark this invoice as paid?",
        },
      ],
      empty: "No invoices yet",
      next: "$data.next",
    },
    {
      type: "form",
      action: "create_invoice",
      title: "New invoice",
      submit_label: "Create invoice",
      fields: ["customer", "currency", "line_items"],
    },
  ],
};
