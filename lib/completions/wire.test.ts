import { describe, expect, it } from "vitest";
import type { ChatChunk } from "@/lib/providers/types";
import { chunkFrames } from "./wire";

const answer = {
  responseId: 'chatcmpl-"quoted"',
  requestedModel: "vendor/modèle",
  startedAt: performance.now(),
  content: "",
  toolCalls: [],
  finishReason: "",
  usage: { promptTokens: 1, completionTokens: 2, cachedTokens: 0 },
  appliedRules: [],
  citations: [],
};

const toolCall = { index: 0, id: "call_1", type: "function" as const, function: { name: "f", arguments: "{}" } };

describe("chunkFrames", () => {
  it.each([true, false])("serializes a delta as JSON.stringify would the whole frame (include_usage %s)", (usage) => {
    const frames = chunkFrames(answer, usage);
    const { created } = frames.role();
    for (const chunk of [
      { content: 'say "hi"\n' },
      { toolCalls: [toolCall] },
      { content: "a", toolCalls: [toolCall] },
    ]) {
      const delta = {
        ...(chunk.content ? { content: chunk.content } : {}),
        ...(chunk.toolCalls ? { tool_calls: chunk.toolCalls } : {}),
      };
      const frame = {
        id: answer.responseId,
        object: "chat.completion.chunk",
        created,
        model: answer.requestedModel,
        system_fingerprint: null,
        ...(usage ? { usage: null } : {}),
        choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      };
      expect(frames.delta(chunk as ChatChunk)).toBe(JSON.stringify(frame));
    }
    expect(frames.delta({} as ChatChunk)).toBeNull();
  });
});
