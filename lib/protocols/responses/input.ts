import { AppError } from "@/lib/errors";
import type { ChatMessage, ContentPart, ToolDefinition } from "@/lib/providers/types";
import type { FunctionTool, InputItem, InputPart, ResponseToolChoice } from "./schemas";

/** A run's `tool_choice` for company tools (lib/runs/stages/tools.ts). */
type RunToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

const badInput = (message: string, param: string) => new AppError("invalid_request", message, { param });

function toPart(p: InputPart, param: string): ContentPart {
  switch (p.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: p.text };
    case "refusal":
      return { type: "text", text: p.refusal };
    case "input_image":
      if (!p.image_url) throw badInput("input_image: only image_url is supported (no file_id)", `${param}.image_url`);
      return { type: "image_url", image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) } };
  }
}

/** Parts as a message's content: one text part is a plain string (what the threads API stores for text). */
function toContent(content: string | InputPart[], param: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  const parts = content.map((p, i) => toPart(p, `${param}.${i}`));
  if (parts.length === 1 && parts[0]!.type === "text") return (parts[0] as { text: string }).text;
  return parts;
}

const textOf = (content: string | ContentPart[]) =>
  typeof content === "string"
    ? content
    : content
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join("\n");

/**
 * A Responses `input` as chat messages: messages keep their roles, except system and developer
 * ones, which become instruction layers (as a completion's system messages do); `function_call`
 * items (unless `liftSystem` is off: a conversation's items keep them) become the assistant's `tool_calls` (joined to the assistant turn before them) and
 * `function_call_output` items `tool` messages. Reasoning items are dropped.
 */
export function toChatMessages(
  input: string | InputItem[] | null | undefined,
  opts: { liftSystem: boolean } = { liftSystem: true },
): {
  instructions: string[];
  messages: ChatMessage[];
} {
  if (input == null) return { instructions: [], messages: [] };
  if (typeof input === "string") return { instructions: [], messages: [{ role: "user", content: input }] };
  const instructions: string[] = [];
  const messages: ChatMessage[] = [];
  input.forEach((item, i) => {
    const param = `input.${i}`;
    if (item.type === "reasoning") return;
    if (item.type === "function_call") {
      const call = {
        id: item.call_id,
        type: "function" as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages.at(-1);
      if (last?.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      return;
    }
    if (item.type === "function_call_output") {
      const content = textOf(toContent(item.output, `${param}.output`));
      messages.push({ role: "tool", tool_call_id: item.call_id, content });
      return;
    }
    const m = item as Extract<InputItem, { role: string }>;
    const content = toContent(m.content, `${param}.content`);
    if (opts.liftSystem && (m.role === "system" || m.role === "developer")) instructions.push(textOf(content));
    else messages.push({ role: m.role, content });
  });
  return { instructions, messages };
}

/** The request's function tools in the chat shape a model takes; tools of other types are not offered. */
export function toClientTools(tools: readonly { type: string }[] | null | undefined): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const t of tools ?? []) {
    if (t.type !== "function") continue;
    const f = t as FunctionTool;
    out.push({
      type: "function",
      function: {
        name: f.name,
        ...(f.description ? { description: f.description } : {}),
        parameters: f.parameters ?? { type: "object", properties: {} },
        ...(f.strict != null ? { strict: f.strict } : {}),
      },
    });
  }
  return out;
}

/**
 * Splits `tool_choice` between the request's own tools (the model's `tool_choice`) and the
 * company's (the run's, checked by the tools stage): a function it names is the caller's when one
 * of its tools has that name; `auto`/`none`/`required` bind the caller's tools when there are any.
 */
export function splitToolChoice(
  choice: ResponseToolChoice | null | undefined,
  clientTools: readonly ToolDefinition[],
): { toolChoice?: unknown; runToolChoice?: RunToolChoice } {
  if (choice == null) return {};
  if (typeof choice === "string") {
    if (clientTools.length === 0) return { runToolChoice: choice };
    return choice === "none" ? { toolChoice: "none", runToolChoice: "none" } : { toolChoice: choice };
  }
  if (choice.type !== "function" || typeof choice.name !== "string") return {};
  const forced = { type: "function" as const, function: { name: choice.name } };
  return clientTools.some((t) => t.function.name === choice.name) ? { toolChoice: forced } : { runToolChoice: forced };
}
