import { GUARDRAIL_STAGE } from "@/db/enums";
import { applyRules } from "@/lib/guardrails/apply";
import { CONTENT_FILTER, INPUT_REFUSAL } from "@/lib/guardrails/refusals";
import { companyRules, peekCompanyRules } from "@/lib/guardrails/rule-cache";
import type { ChatMessage, ContentPart } from "@/lib/providers/types";
import type { GuardrailsOutput, ModelOutput, RunOutcome, RunPrompt, RunRequest, Stage } from "../context";

type Ctx = RunRequest & RunPrompt & GuardrailsOutput & ModelOutput & RunOutcome;
import { addGuardrailStep } from "../steps";

/** The texts of one message, in order: a string content, or its text parts. */
function messageTexts(m: ChatMessage): string[] {
  if (typeof m.content === "string") return [m.content];
  if (!Array.isArray(m.content)) return [];
  return m.content.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : []));
}

/** The message with its texts replaced (same order as messageTexts); the same object when nothing changed. */
function withTexts(m: ChatMessage, texts: string[], from: number): ChatMessage {
  if (typeof m.content === "string") return texts[from] === m.content ? m : { ...m, content: texts[from]! };
  if (!Array.isArray(m.content)) return m;
  let i = from;
  let changed = false;
  const parts = m.content.map((p): ContentPart => {
    if (p.type !== "text" || typeof p.text !== "string") return p;
    const text = texts[i++]!;
    if (text === p.text) return p;
    changed = true;
    return { ...p, text };
  });
  return changed ? { ...m, content: parts } : m;
}

/**
 * Input guardrails, before anything else reads the prompt. Checked: the system-prompt layers and
 * every message the caller sent, of any role (in a chat completion the whole history is the
 * caller's, assistant turns included). A redaction changes what the model receives and what the
 * thread stores; a block ends the run here with the refusal: no credit held, no model call, no
 * bill. Also loads the company's rules once for the output stage (a cache hit in the common case:
 * companies without rules cost a Map lookup and nothing else).
 */
export const inputGuardrailsStage: Stage<Ctx> = {
  name: "input-guardrails",
  // A company known (cached) to have no rules at all: nothing to check now or hold for the output stage.
  skips(ctx: Ctx) {
    const rules = peekCompanyRules(ctx.companyId);
    return rules !== undefined && rules.input.length === 0 && rules.output.length === 0;
  },
  async run(ctx: Ctx) {
    const rules = peekCompanyRules(ctx.companyId) ?? (await companyRules(ctx.companyId));
    ctx.guardrails = rules;
    if (rules.output.length > 0) ctx.holdOutput = true;
    if (rules.input.length === 0) return;

    const started = performance.now();
    // A completion checks what its caller sent (stored with its thread); a run checks the history
    // it sends (already stored: a redaction changes what the model gets, not the thread).
    const checked = ctx.persistent ? ctx.messages : ctx.inputMessages;
    const texts = [...ctx.instructions];
    const starts = checked.map((m) => {
      const start = texts.length;
      texts.push(...messageTexts(m));
      return start;
    });
    const out = await applyRules(rules.input, texts);
    ctx.appliedRules.push(...out.fired);
    addGuardrailStep(ctx, "input", started, rules.input, out, texts.length);
    if (out.fired.length > 0) {
      ctx.instructions = out.texts.slice(0, ctx.instructions.length);
      const replaced = new Map<ChatMessage, ChatMessage>();
      const redacted = checked.map((m, i) => {
        const next = withTexts(m, out.texts, starts[i]!);
        if (next !== m) replaced.set(m, next);
        return next;
      });
      if (ctx.persistent) {
        ctx.messages = redacted;
        // A response's input is stored with its run: as redacted, like a completion's.
        if (ctx.inputMessages.length) ctx.inputMessages = ctx.inputMessages.map((m) => replaced.get(m) ?? m);
      } else {
        ctx.inputMessages = redacted;
        ctx.messages = ctx.messages.map((m) => replaced.get(m) ?? m);
      }
      // The worker's count was of the texts before redaction; the hold counts the prompt again.
      if (replaced.size > 0) ctx.promptTextTokens = undefined;
    }
    if (out.blocked) {
      ctx.blockedBy = GUARDRAIL_STAGE.input;
      ctx.content = INPUT_REFUSAL;
      ctx.toolCalls = [];
      ctx.finishReason = CONTENT_FILTER;
    }
  },
};
