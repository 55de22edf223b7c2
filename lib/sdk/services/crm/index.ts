import { defineAction, defineView, type SdkService } from "@/lib/sdk/types";
import { createDeal } from "./create-deal";
import { listDeals } from "./list-deals";
import { loadPipeline } from "./load-pipeline";
import {
  CreateDealSchema,
  DealsQuery,
  PipelineQuery,
  UpdateDealStageSchema,
  type CreateDealInput,
  type UpdateDealStageInput,
} from "./schemas";
import { toPublicDeal } from "./to-public-deal";
import { updateDealStage } from "./update-deal-stage";
import { dealsDefinition, pipelineDefinition } from "./views";

/** The `crm` SDK service: deals moving through stages. */
export const crm: SdkService = {
  name: "crm",
  title: "CRM",
  views: [
    defineView({
      name: "pipeline",
      title: "Pipeline",
      query: PipelineQuery,
      definition: pipelineDefinition,
      actions: ["update_deal_stage", "create_deal"],
      load: loadPipeline,
    }),
    defineView({
      name: "deals",
      title: "Deals",
      query: DealsQuery,
      definition: dealsDefinition,
      actions: ["update_deal_stage"],
      load: listDeals,
    }),
  ],
  actions: [
    defineAction<CreateDealInput>({
      name: "create_deal",
      title: "Create deal",
      inputSchema: CreateDealSchema,
      refresh: ["pipeline", "deals"],
      run: async (tx, args) => ({ result: toPublicDeal(await createDeal(tx, args)) }),
    }),
    defineAction<UpdateDealStageInput>({
      name: "update_deal_stage",
      title: "Move deal",
      inputSchema: UpdateDealStageSchema,
      refresh: ["pipeline", "deals"],
      run: async (tx, args) => {
        const { deal, changed } = await updateDealStage(tx, args);
        return { result: { ...toPublicDeal(deal), changed }, refresh: changed ? undefined : [] };
      },
    }),
  ],
};
