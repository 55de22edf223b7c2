import type { ToolCall } from "@/lib/providers/types";
import { functionCallItem, outputTextItem, type ResponseObject } from "./output";

type Event = Record<string, unknown> & { type: string; sequence_number: number };

/**
 * The semantic events of one streamed response, in OpenAI's order, each with its
 * `sequence_number`: created, in_progress, the message item (added, its output_text part, deltas,
 * done), the function_call items, then completed | incomplete | failed.
 */
export function responseEvents(messageId: string) {
  let seq = 0;
  let text = "";
  let open = false;
  const ev = (type: string, body: Record<string, unknown>): Event => ({ type, ...body, sequence_number: seq++ });
  const messageIndex = 0;

  return {
    start(response: ResponseObject): Event[] {
      return [ev("response.created", { response }), ev("response.in_progress", { response })];
    },
    delta(chunk: string): Event[] {
      const out: Event[] = [];
      if (!open) {
        open = true;
        out.push(
          ev("response.output_item.added", {
            output_index: messageIndex,
            item: { ...outputTextItem(messageId, "", "in_progress"), content: [] },
          }),
          ev("response.content_part.added", {
            item_id: messageId,
            output_index: messageIndex,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [], logprobs: [] },
          }),
        );
      }
      text += chunk;
      out.push(
        ev("response.output_text.delta", {
          item_id: messageId,
          output_index: messageIndex,
          content_index: 0,
          delta: chunk,
          logprobs: [],
        }),
      );
      return out;
    },
    /** The message's end (when it had text), the function calls, then the terminal event for `response`. */
    end(response: ResponseObject, calls: readonly ToolCall[]): Event[] {
      const out: Event[] = [];
      if (open) {
        const part = { type: "output_text", text, annotations: [], logprobs: [] };
        out.push(
          ev("response.output_text.done", {
            item_id: messageId,
            output_index: messageIndex,
            content_index: 0,
            text,
            logprobs: [],
          }),
          ev("response.content_part.done", { item_id: messageId, output_index: messageIndex, content_index: 0, part }),
          ev("response.output_item.done", { output_index: messageIndex, item: outputTextItem(messageId, text) }),
        );
      }
      const first = open ? 1 : 0;
      calls.forEach((call, i) => {
        const done = functionCallItem(messageId, i, call);
        const index = first + i;
        out.push(
          ev("response.output_item.added", {
            output_index: index,
            item: { ...done, arguments: "", status: "in_progress" },
          }),
          ev("response.function_call_arguments.delta", {
            item_id: done.id,
            output_index: index,
            delta: call.function.arguments,
          }),
          ev("response.function_call_arguments.done", {
            item_id: done.id,
            output_index: index,
            name: call.function.name,
            arguments: call.function.arguments,
          }),
          ev("response.output_item.done", { output_index: index, item: done }),
        );
      });
      out.push(ev(terminalEvent(response.status), { response }));
      return out;
    },
    failed(response: ResponseObject): Event[] {
      return [ev("response.failed", { response })];
    },
  };
}

function terminalEvent(status: string): string {
  if (status === "completed") return "response.completed";
  if (status === "incomplete") return "response.incomplete";
  return "response.failed";
}
