import "server-only";
import { THREAD_SOURCE } from "@/db/enums";
import type { AuthContext } from "@/lib/auth/auth-context";
import { errorBody } from "@/lib/errors";
import { randomBase62 } from "@/lib/ids";
import { toErrorBodyForStream } from "@/lib/http/stream-error";
import type { ChatMessage, ToolDefinition } from "@/lib/providers/types";
import { messageText } from "@/lib/providers/tokens";
import { PASS_THROUGH, type ChatCompletionInput } from "./schemas";
import { chunkFrames, toChatCompletion } from "./wire";
import { runCompletion, streamRunCompletion, type CompletionRequest, type StreamWire } from "./run-completion";

/**
 * `developer` is OpenAI's name for the system role on reasoning models: LangChain's ChatOpenAI
 * sends its system prompt that way for o* and gpt-5* slugs. It is lifted like `system`, so every
 * upstream gets one system message first.
 */
const isInstruction = (m: ChatMessage) => m.role === "system" || m.role === "developer";

/** One chat-completion call as the route hands it over. */
export interface ChatCompletionCall {
  auth: AuthContext;
  input: ChatCompletionInput;
  signal: AbortSignal;
  admitted: Promise<void>;
  textTokens?: number;
  imageDigests?: Record<string, string>;
}

function toCompletionRequest(input: ChatCompletionInput): CompletionRequest {
  const params: Record<string, unknown> = {};
  for (const k of PASS_THROUGH) if (input[k] != null) params[k] = input[k];
  // The output cap is not passed through as given: the adapter sends the cap the credit hold
  // covers, in the field its provider honours (some read only max_tokens, OpenAI's reasoning
  // models only max_completion_tokens). With both set, the smaller one binds.
  const caps = [input.max_tokens, input.max_completion_tokens].filter((n): n is number => n != null);
  const all = input.messages as ChatMessage[];
  return {
    model: input.model,
    source: THREAD_SOURCE.completions,
    responseId: `chatcmpl-${randomBase62(24)}`,
    stream: input.stream === true,
    profileIds: input.profile_ids,
    // SPEC rule 1: system messages become orchestrator instructions; other roles pass unchanged.
    instructions: all.filter(isInstruction).map((m) => messageText(m.content)),
    messages: all.filter((m) => !isInstruction(m)),
    inputMessages: all,
    tools: (input.tools ?? undefined) as ToolDefinition[] | undefined,
    toolChoice: input.tool_choice ?? undefined,
    params,
    maxOutputTokens: caps.length ? Math.min(...caps) : undefined,
  };
}

const toCall = ({ input, ...rest }: ChatCompletionCall) => ({ ...rest, request: toCompletionRequest(input) });

/** Non-streaming completion: the `chat.completion` object, after the run is stored and billed. */
export async function createCompletion(call: ChatCompletionCall) {
  return toChatCompletion(await runCompletion(toCall(call)));
}

/**
 * Streaming completion: `chat.completion.chunk` frames; a failure after the first byte ends the
 * stream with an error frame and no [DONE].
 */
export async function streamCompletion(call: ChatCompletionCall) {
  const includeUsage = call.input.stream_options?.include_usage === true;
  return streamRunCompletion(toCall(call), (ctx): StreamWire => {
    const frames = chunkFrames(ctx, includeUsage);
    const tail = () => [...(includeUsage ? [{ data: frames.usage() }] : []), { data: "[DONE]" }];
    return {
      start: () => [{ data: frames.role() }],
      chunk: (chunk) => {
        const delta = frames.delta(chunk);
        return delta ? [{ data: delta }] : [];
      },
      finish: (reason) => [{ data: frames.finish(reason) }],
      end: () => tail(),
      fail: (err) => [{ data: toErrorBodyForStream(err) }],
      cutShort: (err) => [{ data: errorBody(err) }, ...tail()],
    };
  });
}
