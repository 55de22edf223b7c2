import { DEAL_STAGES } from "@/db/enums";
import type { SduiNode } from "@/lib/sdk/types";
import { STAGE_TITLES } from "./schemas";

/** Definitions in the vocabulary of widget/VOCABULARY.md (version 1). */

const STAGE_TONES = { lead: "neutral", qualified: "info", proposal: "warning", won: "success", lost: "danger" };

export const pipelineDefinition: SduiNode = {
  type: "page",
  title: "Pipeline",
  children: [
    {
      type: "stack",
      direction: "horizontal",
      children: [
        { type: "stat", label: "Open deals", value: "$data.stats.open_count", format: "number" },
        {
          type: "stat",
          label: "Open value",
          value: "$data.stats.open_value",
          format: "money",
          currency: "$data.currency",
        },
        {
          type: "stat",
          label: "Won value",
          value: "$data.stats.won_value",
          format: "money",
          currency: "$data.currency",
        },
      ],
    },
    {
      type: "board",
      columns: "$data.stages",
      column_id: "id",
      column_title: "title",
      cards: "deals",
      card: { title: "title", subtitle: "contact", value: "amount", format: "money", currency: "currency" },
      column_stats: [
        { label: "Deals", value: "$column.count" },
        { label: "Total", value: "$column.total_text" },
      ],
      move: { action: "update_deal_stage", input: { deal_id: "$card.id", stage: "$column.id" } },
    },
    {
      type: "form",
      action: "create_deal",
      title: "New deal",
      submit_label: "Create deal",
      fields: ["title", "contact", "amount", "currency", "stage"],
    },
  ],
};

export const dealsDefinition: SduiNode = {
  type: "page",
  title: "Deals",
  children: [
    {
      type: "filter",
      param: "stage",
      label: "Stage",
      options: [{ value: "", label: "All stages" }, ...DEAL_STAGES.map((s) => ({ value: s, label: STAGE_TITLES[s] }))],
    },
    {
      type: "table",
      rows: "$data.deals",
      columns: [
        { key: "title", label: "Title" },
        { key: "contact", label: "Contact" },
        { key: "amount", label: "Amount", format: "money", currency: "$row.currency" },
        { key: "stage", label: "Stage", format: "badge", tones: STAGE_TONES },
        { key: "stage_changed_by", label: "Moved by" },
      ],
      row_actions: [
        {
          type: "button",
          label: "Won",
          action: "update_deal_stage",
          input: { deal_id: "$row.id", stage: "won" },
          variant: "primary",
        },
        {
          type: "button",
          label: "Lost",
          action: "update_deal_stage",
          input: { deal_id: "$row.id", stage: "lost" },
          variant: "danger",
          confirm: "Mark this deal as lost?",
        },
      ],
      empty: "No deals yet",
      next: "$data.next",
    },
  ],
};
