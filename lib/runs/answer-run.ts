import "server-only";
import { eventStreamResponse } from "@/lib/http/event-stream";
import { jsonResponse } from "@/lib/http/json-response";
import { createRun, streamRun, type RunCall } from "./create-run";

/**
 * A run request's HTTP answer, for the API's run route and the playground's alike: the run object,
 * or its event stream when `stream` is set; `x-run-id` names the run either way. `req`: the HTTP request answered.
 */
export async function answerRun(call: RunCall, req: Request): Promise<Response> {
  if (!call.input.stream) {
    const run = await createRun(call);
    return jsonResponse(req, run, { headers: { "x-run-id": run.id } });
  }
  const { body, runId } = await streamRun(call);
  const res = eventStreamResponse(req, body);
  res.headers.set("x-run-id", runId);
  return res;
}
