import { countPromptTokensYielding, countTextTokens, countTokensYielding, truncateTextTokens } from "../tokens";
import type { CallOptions, ChatChunk, ChatRequest, ChatResult, ProviderAdapter } from "../types";
import { chunkText, localReply } from "./respond";

function truncate(text: string, maxTokens: number | undefined): { text: string; truncated: boolean } {
  return maxTokens === undefined ? { text, truncated: false } : truncateTextTokens(text, maxTokens);
}

/** The offline models: no network, no key; usage counted with the real tokenizer. */
export const localAdapter: ProviderAdapter = {
  async complete(req: ChatRequest, opts: CallOptions): Promise<ChatResult> {
    opts.signal.throwIfAborted();
    opts.onDispatch?.(true);
    // Prompts and replies of megabytes are counted in windows, letting other requests in between.
    const promptTokens = await countPromptTokensYielding(req.messages, req.tools);
    const reply = localReply(req);
    if (reply.kind === "tool_call") {
      return {
        content: null,
        toolCalls: [reply.call],
        finishReason: "tool_calls",
        usage: {
          promptTokens,
          completionTokens: countTextTokens(reply.call.function.name + reply.call.function.arguments),
          cachedTokens: 0,
        },
      };
    }
    const { text, truncated } = truncate(reply.text, req.maxOutputTokens);
    return {
      content: text,
      toolCalls: [],
      finishReason: truncated ? "length" : "stop",
      usage: { promptTokens, completionTokens: await countTokensYielding([text]), cachedTokens: 0 },
    };
  },

  async *stream(req: ChatRequest, opts: CallOptions): AsyncIterable<ChatChunk[]> {
    const result = await this.complete(req, opts);
    if (result.toolCalls.length > 0) {
      const call = result.toolCalls[0]!;
      yield [
        {
          toolCalls: [
            { index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
          ],
        },
      ];
      yield [{ toolCalls: [{ index: 0, function: { arguments: call.function.arguments } }] }];
    } else {
      for (const piece of chunkText(result.content ?? "")) {
        opts.signal.throwIfAborted();
        yield [{ content: piece }];
        // Yield to the event loop between chunks, as a network stream would.
        await new Promise((r) => setImmediate(r));
      }
    }
    yield [{ finishReason: result.finishReason, usage: result.usage ?? undefined }];
  },
};
