import type { ChatMessage, ChatRequest } from "@/lib/providers/types";
import type { MultimodalOutput, RetrievalOutput, RunPrompt, RunRequest } from "./context";

/** The system layer that carries retrieved context (and mentioned files) to the model, with sources. */
export function contextLayer(passages: RetrievalOutput["passages"]): string {
  return (
    "Use the following retrieved context when it is relevant:\n" +
    passages.map((p, i) => `[${i + 1}]${p.filename ? ` (${p.filename})` : ""} ${p.text}`).join("\n")
  );
}

/** What the model receives: one system message with every instruction layer and retrieved context, then the conversation. */
export function modelRequest(
  ctx: Pick<RunRequest, "params"> & RunPrompt & Pick<RetrievalOutput, "passages"> & MultimodalOutput,
): Omit<ChatRequest, "model"> {
  const layers = [...ctx.instructions];
  if (ctx.passages.length > 0) layers.push(contextLayer(ctx.passages));
  const system: ChatMessage[] = layers.length ? [{ role: "system", content: layers.join("\n\n") }] : [];
  return {
    messages: [...system, ...ctx.messages],
    tools: ctx.tools,
    toolChoice: ctx.toolChoice,
    params: ctx.params,
    maxOutputTokens: ctx.maxOutputTokens,
    passages: ctx.passages,
    imageNotes: ctx.imageNotes,
  };
}
