import "server-only";
import { db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { activeToolsByName } from "@/lib/tools/active-tools";
import type { ToolDefinition } from "@/lib/providers/types";
import type { ProfilesOutput, RunOutcome, RunPrompt, RunRequest, ServerTool, Stage, ToolsOutput } from "../context";

const badChoice = (message: string, wireCode?: string) =>
  new AppError("invalid_request", message, { param: "tool_choice", ...(wireCode ? { wireCode } : {}) });

/** The company's active tools among `names`, as the loop carries them. */
async function activeTools(companyId: string, names: string[]): Promise<ServerTool[]> {
  return (await activeToolsByName(db, companyId, names)).map((t) => ({
    id: t.id,
    name: t.name,
    description: t.description,
    jsonSchema: t.jsonSchema,
    pythonCode: t.pythonCode,
    version: t.updatedAt.toISOString(),
  }));
}

/**
 * Which server-side tools a run offers (CONTRACT 6): the union of the composed profiles'
 * `allowed_tool_names` when tools are on (`use_tools` overrides the profiles' toggles), plus a
 * function that `tool_choice` forces, which must be an active tool of the company (400 naming
 * `tool_choice` otherwise) and is offered even if no profile lists it. `none` offers nothing.
 * Names a profile lists that are no longer active tools are skipped (the step says which).
 * Runs only: chat completions pass their request's own `tools` through (CONTRACT 5.9).
 */
export const toolsStage: Stage<RunRequest & RunPrompt & ProfilesOutput & ToolsOutput & RunOutcome> = {
  name: "tools",
  // Runs (a response with store:false too); completions pass their request's tools through.
  skips: (ctx) => !ctx.persistent && !ctx.ephemeral,
  async run(ctx) {
    const choice = ctx.runToolChoice;
    if (choice === "none") return;
    const forced = choice && typeof choice === "object" ? choice.function.name : undefined;
    const on = ctx.composition ? ctx.composition.useTools : ctx.useTools === true;
    if (forced && ctx.useTools === false) throw badChoice(`tool_choice forces '${forced}' but use_tools is false`);
    const names = [...new Set([...(on ? (ctx.composition?.allowedToolNames ?? []) : []), ...(forced ? [forced] : [])])];
    if (names.length === 0) {
      if (choice === "required")
        throw badChoice("tool_choice 'required' needs at least one tool offered to the run, and none is");
      return;
    }
    const found = await activeTools(ctx.companyId, names);
    const byName = new Map(found.map((t) => [t.name, t]));
    if (forced && !byName.has(forced))
      throw badChoice(`tool_choice: the company has no active tool named '${forced}'`, "tool_not_found");
    if (byName.size === 0) {
      if (choice === "required")
        throw badChoice(
          "tool_choice 'required' needs at least one tool offered to the run, and none of the profiles' tools is active",
        );
      return;
    }
    if (!ctx.model.model.supportsTools) {
      if (forced || choice === "required") {
        throw new AppError("invalid_request", `The model '${ctx.requestedModel}' does not support tools`, {
          param: "model",
          wireCode: "tools_not_supported",
        });
      }
      ctx.toolsSkipped = `the model '${ctx.requestedModel}' does not support tools`;
      return;
    }
    // A response's own function tools (ctx.tools, returned to the caller) are offered beside them;
    // a client tool of the same name hides the company's.
    const client = ctx.clientTools ? (ctx.tools ?? []) : [];
    const clientNames = new Set(client.map((t) => t.function.name));
    for (const n of clientNames) byName.delete(n);
    ctx.serverTools = byName;
    ctx.toolsMissing = names.filter((n) => !byName.has(n) && !clientNames.has(n));
    ctx.tools = [
      ...client,
      ...[...byName.values()].map((t): ToolDefinition => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.jsonSchema },
      })),
    ];
    if (!(ctx.clientTools && ctx.toolChoice !== undefined))
      ctx.toolChoice = choice && choice !== "auto" ? choice : undefined;
  },
};
