import "server-only";
import { resolveModel } from "@/lib/models";
import { countPromptTokensYielding } from "@/lib/providers/tokens";
import type { ChatMessage } from "@/lib/providers/types";
import type { CountTokensInput } from "./schemas";
import { toChatPrompt } from "./to-chat-prompt";

/**
 * `{"input_tokens": N}`: the prompt as the pipeline would send it (system, conversation, tools),
 * counted with the gateway's tokenizer (o200k), as the local models and the credit hold count it.
 * Free, as Anthropic's endpoint is. @throws 404 for a model the company cannot use.
 */
export async function countMessageTokens(args: { companyId: string; input: CountTokensInput }) {
  await resolveModel({ companyId: args.companyId, slug: args.input.model });
  const prompt = toChatPrompt(args.input);
  const messages: ChatMessage[] = [
    ...prompt.instructions.map((content) => ({ role: "system", content })),
    ...prompt.messages,
  ];
  return { input_tokens: await countPromptTokensYielding(messages, prompt.tools) };
}
