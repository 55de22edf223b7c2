import "server-only";
import { Ajv, type ValidateFunction } from "ajv";
import { endHold, holdCredit } from "@/lib/billing/lease";
import { otToMicro } from "@/lib/billing/money";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { jsonNestsDeeper, MAX_JSON_DEPTH } from "@/lib/http/read-json";
import { log } from "@/lib/log";
import { worstCaseMicro } from "@/lib/models";
import { promptTokenBound } from "@/lib/providers/tokens";
import type { ChatMessage, ToolCall, Usage } from "@/lib/providers/types";
import { runTool } from "@/lib/sandbox";
import { fitToolResults } from "@/lib/tools/fit-tool-results";
import { re2RegExpEngine } from "@/lib/tools/json-schema";
import { stageCallsMicro, type ExecutedToolCall, type ServerTool, type Stage, type ToolLoopOutput } from "../context";
import { addStep, STEP_TYPE } from "../steps";
import { callModelStage, type ModelStageContext } from "./call-model";

/** Whether `name` is one of the request's own tools (not executed here). */
const clientTool = (ctx: Ctx, name: string) =>
  ctx.clientTools === true && ctx.tools?.some((t) => t.function.name === name);

/** What the tool loop reads and writes: the model stage's part (it calls the model again) and its own. */
type Ctx = ModelStageContext & ToolLoopOutput;

/** What a tool_call step keeps of a tool's printed output and of large arguments or results. */
const STEP_STDOUT_CHARS = 4000;

// `pattern` in a company's schema runs on RE2, as when the schema was accepted (lib/tools): a
// backtracking regex over model-written arguments could stall the server for every company.
const ajv = new Ajv({ strict: false, allErrors: true, code: { regExp: re2RegExpEngine } });
const validators = new Map<string, ValidateFunction>();
const VALIDATORS_MAX = 1000;

/** The tool's argument validator, compiled once per tool version. Null when its schema cannot compile (the tools API refuses those). */
function validatorFor(tool: ServerTool): ValidateFunction | null {
  const key = `${tool.id}:${tool.version}`;
  let v = validators.get(key);
  if (!v) {
    try {
      v = ajv.compile(tool.jsonSchema);
    } catch (err) {
      log.warn({ err, toolId: tool.id }, "a tool's json_schema does not compile; arguments unchecked");
      return null;
    }
    if (validators.size >= VALIDATORS_MAX) validators.delete(validators.keys().next().value!);
    validators.set(key, v);
  }
  return v;
}

/** Checks and runs one call the model made; every failure becomes `result: {"error": …}` and the run goes on. */
async function execute(ctx: Ctx, call: ToolCall): Promise<{ executed: ExecutedToolCall; id: string }> {
  const started = performance.now();
  const name = call.function.name;
  const tool = ctx.serverTools!.get(name);
  let args: unknown = call.function.arguments;
  let result: unknown;
  let detail: Record<string, unknown> = {};
  // Model-written JSON is checked like a request body: validating or passing on a 10,000-deep
  // object would overflow the stack.
  if (jsonNestsDeeper(call.function.arguments, MAX_JSON_DEPTH))
    result = { error: `the arguments nest deeper than ${MAX_JSON_DEPTH} levels` };
  else {
    try {
      args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
    } catch {
      result = { error: "the arguments are not valid JSON" };
    }
  }
  if (result === undefined && !tool) result = { error: `no tool named '${name}' is offered to this run` };
  if (result === undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    result = { error: "the arguments must be a JSON object" };
  }
  if (result === undefined) {
    const validate = validatorFor(tool!);
    if (validate && !validate(args))
      result = { error: `invalid arguments: ${ajv.errorsText(validate.errors, { dataVar: "args" })}` };
  }
  if (result === undefined) {
    try {
      const run = await runTool({
        companyId: ctx.companyId,
        name,
        code: tool!.pythonCode,
        args: args as Record<string, unknown>,
        signal: ctx.signal,
      });
      result = run.ok ? run.result : { error: run.error };
      ctx.toolCpuMs = (ctx.toolCpuMs ?? 0) + run.cpuMs;
      detail = { ok: run.ok, cpu_ms: run.cpuMs, wall_ms: run.wallMs, stdout: run.stdout.slice(0, STEP_STDOUT_CHARS) };
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      // The sandbox could not run at all (AppError unavailable): the tool failed, the run goes on.
      result = { error: err instanceof AppError ? err.message : "the tool could not be run" };
      detail = { ok: false };
    }
  }
  const executed = { name, args, result };
  (ctx.executedTools ??= []).push(executed);
  addStep(ctx, STEP_TYPE.tool_call, started, {
    name,
    tool_id: tool?.id ?? null,
    call_id: call.id,
    args,
    result,
    ...detail,
  });
  ctx.onToolCall?.(executed);
  return { executed, id: call.id };
}

/** Why a call is not executed: past the per-round or the per-run cap. */
function overCap(ctx: Ctx, index: number): string | null {
  if (index >= env.TOOL_MAX_CALLS_PER_ROUND)
    return `not executed: at most ${env.TOOL_MAX_CALLS_PER_ROUND} tool calls per model reply`;
  if ((ctx.executedTools?.length ?? 0) >= env.TOOL_MAX_CALLS_PER_RUN)
    return `not executed: at most ${env.TOOL_MAX_CALLS_PER_RUN} tool calls per run`;
  return null;
}

/**
 * Executes the round's calls up to the caps (TOOL_MAX_CALLS_PER_ROUND, TOOL_MAX_CALLS_PER_RUN); a
 * call past them is not run and gets an error result (every call needs its tool message), and one
 * step names them. Each result as the content of its tool message.
 */
async function executeRound(ctx: Ctx, calls: ToolCall[]): Promise<{ id: string; content: string }[]> {
  const results: { id: string; content: string }[] = [];
  const unexecuted: string[] = [];
  const started = performance.now();
  for (const [i, call] of calls.entries()) {
    const refused = overCap(ctx, i);
    if (refused) {
      unexecuted.push(call.function.name);
      results.push({ id: call.id, content: JSON.stringify({ error: refused }) });
      continue;
    }
    const r = await execute(ctx, call);
    results.push({ id: r.id, content: JSON.stringify(r.executed.result) ?? "null" });
  }
  if (unexecuted.length) {
    addStep(ctx, STEP_TYPE.tool_call, started, {
      call_cap_reached: { per_round: env.TOOL_MAX_CALLS_PER_ROUND, per_run: env.TOOL_MAX_CALLS_PER_RUN },
      unexecuted,
    });
    log.warn(
      { runId: ctx.runId, companyId: ctx.companyId, unexecuted: unexecuted.length },
      "tool calls over the cap were not executed",
    );
  }
  return results;
}

/**
 * The round's tool messages, their contents cut (largest first, with a visible marker) when the
 * next call's prompt would not fit the model's context window less the room kept for the answer
 * (the output cap, at most a quarter of the window); a step records each cut. The output cap is
 * lowered to what the window leaves, before the hold is extended, so the call fits and is held.
 */
async function fitResults(
  ctx: Ctx,
  assistant: ChatMessage,
  results: { id: string; content: string }[],
): Promise<ChatMessage[]> {
  const started = performance.now();
  const window = ctx.model.model.contextWindow;
  const answer = Math.min(ctx.maxOutputTokens ?? window, Math.floor(window / 4));
  const fit = await fitToolResults({
    messages: [...ctx.messages, assistant],
    tools: ctx.tools,
    results,
    budget: window - answer,
  });
  const { contents, cut } = fit;
  if (ctx.maxOutputTokens !== undefined)
    ctx.maxOutputTokens = Math.max(1, Math.min(ctx.maxOutputTokens, window - fit.promptTokens));
  if (cut.length) {
    addStep(ctx, STEP_TYPE.tool_call, started, {
      results_truncated: cut.map((c) => ({ call_id: results[c.index]!.id, omitted_chars: c.omitted_chars })),
    });
    log.info(
      { runId: ctx.runId, companyId: ctx.companyId, cut: cut.length },
      "tool results cut to fit the context window",
    );
  }
  return results.map((r, i): ChatMessage => ({ role: "tool", tool_call_id: r.id, content: contents[i]! }));
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  cachedTokens: a.cachedTokens + b.cachedTokens,
});

const toolCpuMicro = (ctx: Ctx) => Math.round(((ctx.toolCpuMs ?? 0) / 1000) * otToMicro(env.TOOL_CPU_OT_PER_S));

/**
 * Before each further model call the run's credit hold is replaced by one covering what the run
 * has cost so far plus that call's worst case (its prompt: the last one plus what was added; its
 * output cap), so a long tool loop can never spend credit the company does not have (402 ends the
 * run, billed for what it used). The new hold is taken before the old one is given back.
 */
async function extendHold(ctx: Ctx, added: ChatMessage[], spentMicro: number): Promise<void> {
  const prompt = ctx.usage.promptTokens + ctx.usage.completionTokens + promptTokenBound(added);
  const next = await holdCredit(
    ctx.companyId,
    spentMicro + worstCaseMicro(prompt, ctx.maxOutputTokens ?? 0, ctx.model.prices),
  );
  if (ctx.hold) endHold(ctx.hold, 0);
  ctx.hold = next;
}

/**
 * The server-side tool loop (runs with company tools offered, lib/runs/stages/tools.ts): the
 * model's tool calls are checked against each tool's `json_schema`, executed in the sandbox, and
 * fed back (the assistant's calls, then one `tool` message per result) until the model answers
 * without calling tools. After TOOL_MAX_STEPS rounds the last call is made with `tool_choice:
 * "none"`. A forced `tool_choice` applies to the first call only (then `auto`), or the model
 * would call it forever. Usage and cost add up over the calls; tool CPU time is billed at
 * TOOL_CPU_OT_PER_S. The thread stores only the final answer; the calls and results are in the
 * run's `tool_calls` and steps (a history cut between a call and its result would be refused by
 * providers).
 */
export const toolLoopStage: Stage<Ctx> = {
  name: "tool-loop",
  skips: (ctx) => !ctx.serverTools || !!ctx.blockedBy,
  async run(ctx) {
    let rounds = 0;
    let usage = ctx.usage;
    let modelMicro = ctx.costMicro - stageCallsMicro(ctx);
    let text = ctx.content;
    while (ctx.toolCalls.length > 0) {
      // A call of one of the request's own tools (a response's function tools) goes back to the
      // caller with the round's other calls; the caller's results continue the run later.
      if (ctx.toolCalls.some((c) => !ctx.serverTools!.has(c.function.name) && clientTool(ctx, c.function.name))) break;
      if (rounds >= env.TOOL_MAX_STEPS) {
        addStep(ctx, STEP_TYPE.tool_call, performance.now(), {
          step_cap_reached: env.TOOL_MAX_STEPS,
          unexecuted: ctx.toolCalls.map((c) => c.function.name),
        });
        break;
      }
      rounds++;
      const calls = ctx.toolCalls;
      const results = await executeRound(ctx, calls);
      const assistant: ChatMessage = { role: "assistant", content: ctx.content || null, tool_calls: calls };
      const added: ChatMessage[] = [assistant, ...(await fitResults(ctx, assistant, results))];
      const spent = modelMicro + stageCallsMicro(ctx) + toolCpuMicro(ctx);
      await extendHold(ctx, added, spent);
      ctx.messages = [...ctx.messages, ...added];
      if (ctx.toolChoice && ctx.toolChoice !== "none") ctx.toolChoice = undefined;
      if (rounds >= env.TOOL_MAX_STEPS || (ctx.executedTools?.length ?? 0) >= env.TOOL_MAX_CALLS_PER_RUN)
        ctx.toolChoice = "none";
      ctx.content = "";
      ctx.toolCalls = [];
      ctx.usageReported = false;
      ctx.promptTokens = undefined;
      ctx.finishReason = "";
      await callModelStage.run(ctx);
      usage = addUsage(usage, ctx.usage);
      modelMicro += ctx.costMicro - stageCallsMicro(ctx);
      text = text && ctx.content ? `${text}\n\n${ctx.content}` : text || ctx.content;
      ctx.usage = usage;
      ctx.costMicro = modelMicro + stageCallsMicro(ctx) + toolCpuMicro(ctx);
    }
    ctx.content = text;
    ctx.usage = usage;
    ctx.costMicro = modelMicro + stageCallsMicro(ctx) + toolCpuMicro(ctx);
  },
};
