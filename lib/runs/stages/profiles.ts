import "server-only";
import { db } from "@/db/client";
import { composeProfiles } from "@/lib/profiles/compose";
import { peekDefaultProfile } from "@/lib/profiles/default-cache";
import type { ProfilesOutput, RunOutcome, RunPrompt, RunRequest, Stage } from "../context";
import { addStep, STEP_TYPE } from "../steps";

/**
 * First stage (CONTRACT 5.9): the request's `profile_ids`, else the company's default profile.
 * Their system prompts come before the request's own system messages (already in
 * `ctx.instructions`); the composition is kept for retrieval and the tool loop. Profiles' server-side
 * tools are not offered to completions, so `ctx.tools` is left as the request gave it. A company
 * without profiles is answered from a per-process cache: no query, nothing changes.
 */
export const profilesStage: Stage<RunRequest & RunPrompt & ProfilesOutput & RunOutcome> = {
  name: "profiles",
  // No profile named and the company has no default (cached): nothing to compose.
  skips: (ctx) => ctx.profileIds === undefined && peekDefaultProfile(ctx.companyId) === null,
  async run(ctx) {
    const started = performance.now();
    const composition = await composeProfiles(db, ctx.companyId, {
      profileIds: ctx.profileIds,
      useKb: ctx.useKb,
      useTools: ctx.useTools,
    });
    if (composition.profiles.length === 0) return;
    ctx.composition = composition;
    ctx.instructions = [...composition.systemPrompts, ...ctx.instructions];
    addStep(ctx, STEP_TYPE.profiles, started, {
      profiles: composition.profiles,
      source: ctx.profileIds === undefined ? "default" : "profile_ids",
      system_prompt_layers: composition.systemPrompts.length,
      knowledge_base_ids: composition.knowledgeBaseIds,
      allowed_tool_names: composition.allowedToolNames,
      use_kb: composition.useKb,
      use_tools: composition.useTools,
    });
  },
};
