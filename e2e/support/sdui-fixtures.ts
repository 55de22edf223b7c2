/**
 * View responses written from widget/VOCABULARY.md alone (every node type, an unknown type, a
 * malformed node), for the renderer tests that answer the gateway's SDK calls themselves.
 */
const createDealSchema = {
  type: "object",
  additionalProperties: false,
  required: ["title", "amount", "stage"],
  properties: {
    title: { type: "string", title: "Title", minLength: 1, maxLength: 80 },
    amount: {
      type: "string",
      title: "Amount",
      description: "A decimal, e.g. 1200.50",
      pattern: "^\\d+(\\.\\d{1,2})?$",
    },
    stage: { type: "string", title: "Stage", enum: ["lead", "qualified", "proposal", "won", "lost"], default: "lead" },
    close_date: { type: "string", format: "date", title: "Close date" },
    hot: { type: "boolean", title: "Hot lead" },
  },
};

const invoiceSchema = {
  type: "object",
  required: ["customer", "lines"],
  properties: {
    customer: { type: "string", minLength: 1 },
    lines: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["description", "quantity"],
        properties: { description: { type: "string", minLength: 1 }, quantity: { type: "integer", minimum: 1 } },
      },
    },
  },
};

export function pipelineFixture(deals: { id: string; title: string; amount: string; stage: string }[]) {
  const stages = ["lead", "qualified", "won"];
  return {
    service: "crm",
    view: "pipeline",
    version: 7,
    definition: {
      type: "page",
      title: "Pipeline",
      children: [
        {
          type: "stack",
          direction: "horizontal",
          children: [
            { type: "stat", label: "Open deals", value: "$data.totals.open", format: "number" },
            { type: "stat", label: "Open value", value: "$data.totals.value", format: "money", currency: "EUR" },
            { type: "badge", value: "$data.health", tones: { good: "success" } },
            { type: "text", value: "$$ literal", variant: "muted" },
          ],
        },
        { type: "sparkline", values: "$data.trend" },
        { type: "stat", value: 3 },
        {
          type: "board",
          columns: "$data.stages",
          column_id: "id",
          column_title: "title",
          cards: "deals",
          card: { title: "title", subtitle: "id", value: "amount", format: "money", currency: "currency" },
          column_stats: [{ label: "Deals", value: "$column.count" }],
          move: { action: "update_deal_stage", input: { deal_id: "$card.id", stage: "$column.id" } },
        },
        {
          type: "form",
          action: "create_deal",
          title: "New deal",
          submit_label: "Create deal",
          fields: ["title", "amount", "stage", "close_date", "hot"],
        },
        { type: "table", rows: "$data.none", columns: [{ key: "id", label: "Id" }], empty: "No invoices yet" },
        { type: "empty", message: "That is all" },
      ],
    },
    data: {
      totals: { open: deals.length, value: "1500.00" },
      health: "good",
      trend: [1, 2, 3],
      stages: stages.map((s) => {
        const inStage = deals.filter((d) => d.stage === s).map((d) => ({ ...d, currency: "EUR" }));
        return { id: s, title: s[0]!.toUpperCase() + s.slice(1), count: inStage.length, deals: inStage };
      }),
    },
    actions: [
      { name: "create_deal", title: "Create deal", input_schema: createDealSchema },
      {
        name: "update_deal_stage",
        title: "Move deal",
        input_schema: {
          type: "object",
          required: ["deal_id", "stage"],
          properties: { deal_id: { type: "string" }, stage: { type: "string" } },
        },
      },
    ],
  };
}

export function invoicesFixture(page: 1 | 2, status: string | null) {
  const rows =
    page === 1
      ? [
          { id: "inv_1", customer: { name: "Acme" }, total: "100.00", status: "open" },
          { id: "inv_2", customer: { name: "Globex" }, total: "250.00", status: "paid" },
        ]
      : [{ id: "inv_3", customer: { name: "Initech" }, total: "75.00", status: "open" }];
  return {
    service: "billing",
    view: "invoices",
    version: 2,
    definition: {
      type: "page",
      title: "Invoices",
      children: [
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
          next: "$data.next",
          columns: [
            { key: "id", label: "Invoice" },
            { key: "customer.name", label: "Customer" },
            { key: "total", label: "Total", format: "money" },
            { key: "status", label: "Status", format: "badge", tones: { paid: "success", open: "warning" } },
          ],
          row_actions: [
            {
              type: "button",
              label: "Mark paid",
              action: "mark_invoice_paid",
              input: { invoice_id: "$row.id" },
              variant: "primary",
            },
          ],
        },
        { type: "form", action: "create_invoice", title: "New invoice" },
      ],
    },
    data: {
      invoices: status ? rows.filter((r) => r.status === status) : rows,
      next: page === 1 && !status ? "inv_2" : null,
    },
    actions: [
      { name: "create_invoice", title: "Create invoice", input_schema: invoiceSchema },
      {
        name: "mark_invoice_paid",
        title: "Mark paid",
        input_schema: { type: "object", required: ["invoice_id"], properties: { invoice_id: { type: "string" } } },
      },
    ],
  };
}
