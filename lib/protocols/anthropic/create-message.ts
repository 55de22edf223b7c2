import "server-only";
import { THREAD_SOURCE } from "@/db/enums";
import type { AuthContext } from "@/lib/auth/auth-context";
import { runCompletion, streamRunCompletion, type CompletionCall } from "@/lib/completions/run-completion";
import { AppError } from "@/lib/errors";
import { randomBase62 } from "@/lib/ids";
import { anthropicErrorBody } from "./errors";
import type { MessagesInput } from "./schemas";
import { toChatPrompt } from "./to-chat-prompt";
import { messageEvents, toAnthropicMessage } from "./to-message";

/** One Messages call as the route hands it over. */
export interface MessageCall {
  auth: AuthContext;
  input: MessagesInput;
  signal: AbortSignal;
  admitted: Promise<void>;
  requestId: string;
}

/** A Messages call is a chat completion on a throwaway thread of source `messages`, billed once. */
function toCall({ input, auth, signal, admitted }: MessageCall): CompletionCall {
  return {
    auth,
    signal,
    admitted,
    request: {
      ...toChatPrompt(input),
      model: input.model,
      source: THREAD_SOURCE.messages,
      responseId: `msg_${randomBase62(24)}`,
      stream: input.stream === true,
      profileIds: input.profile_ids,
    },
  };
}

/** Non-streaming: Anthropic's `message` object, after the run is stored and billed. */
export async function createMessage(call: MessageCall) {
  return toAnthropicMessage(await runCompletion(toCall(call)));
}

/** An error after the first byte as Anthropic's `error` event payload (the cause stays in the log). */
function streamErrorBody(err: unknown, requestId: string) {
  const appErr =
    err instanceof AppError ? err : new AppError("internal", "The stream failed", { wireCode: "internal_error" });
  return anthropicErrorBody(appErr, requestId);
}

/**
 * Streaming: Anthropic's events. A failure before the first byte is an ordinary HTTP error; after
 * it, an `error` event ends the stream.
 */
export async function streamMessage(call: MessageCall) {
  return streamRunCompletion(toCall(call), (ctx) => {
    const events = messageEvents(ctx, () => ctx.promptTokens ?? ctx.promptTextTokens ?? 0);
    return {
      start: events.start,
      chunk: events.chunk,
      finish: events.finish,
      end: events.end,
      fail: (err) => events.error(streamErrorBody(err, call.requestId)),
      cutShort: (err) => events.error(anthropicErrorBody(err, call.requestId)),
    };
  });
}
