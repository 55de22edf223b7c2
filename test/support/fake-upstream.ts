import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake provider on loopback that speaks the real wire protocols: OpenAI Chat Completions
 * (`POST /v1/chat/completions`, JSON or SSE) and Anthropic Messages (`POST /v1/messages`, JSON or
 * SSE). It records every request so tests can check what the gateway sent, and can be told to
 * fail, stall or break mid-stream.
 */
export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Set when the client closed the connection before the response ended. */
  abortedAt?: number;
  receivedAt: number;
}

export type Behaviour =
  /** Answer with this HTTP status and an error body in the protocol's shape. */
  | { kind: "error"; status: number; message?: string; headers?: Record<string, string> }
  /** Wait before sending response headers (first-byte timeout tests). */
  | { kind: "delay"; ms: number }
  /**
   * Stream `chunks` pieces, then destroy the socket without finishing (failure after first byte).
   * With `intervalMs`, pieces and the break are that far apart, so the client sees the bytes before the break.
   */
  | { kind: "break-stream"; chunks: number; intervalMs?: number }
  /** Stream `chunks` pieces `intervalMs` apart (client-disconnect tests). */
  | { kind: "slow-stream"; chunks: number; intervalMs: number }
  /** Accept the TCP connection and never answer. */
  | { kind: "hang" };

export interface FakeUpstreamOptions {
  /** Reply text; default depends on the last user message. */
  reply?: (body: any) => string;
  /** Usage to report; default counts words. */
  usage?: (body: any, reply: string) => { prompt: number; completion: number; cached?: number };
  /** Tool call to make when the request offers tools and tool_choice is not "none". */
  toolCall?: (body: any) => { name: string; arguments: Record<string, unknown> } | null;
}

export interface FakeUpstream {
  url: string;
  /** OpenAI-style base URL (`…/v1`) for `*_BASE_URL`. */
  openaiBase: string;
  /** Anthropic-style base URL (no `/v1`) for ANTHROPIC_BASE_URL. */
  anthropicBase: string;
  requests: RecordedRequest[];
  /** Behaviours consumed one per request, in order; when empty, requests succeed. */
  queue: Behaviour[];
  close(): Promise<void>;
}

const lastUserText = (body: any): string => {
  const msgs: any[] = body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role === "user") {
      const c = msgs[i].content;
      if (typeof c === "string") return c;
      if (Array.isArray(c)) return c.filter((p: any) => p.type === "text").map((p: any) => p.text).join(" ");
    }
  }
  return "";
};

const defaultReply = (body: any) => `Echo from ${body.model}: ${lastUserText(body)}`;
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<import("node:net").Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      body = { raw: Buffer.concat(chunks).toString("utf8") };
    }
    const record: RecordedRequest = { path: req.url ?? "", headers: req.headers, body, receivedAt: Date.now() };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.abortedAt = Date.now();
    });

    const anthropic = (req.url ?? "").startsWith("/v1/messages");
    const behaviour = queue.shift();
    if (behaviour?.kind === "hang") return;
    if (behaviour?.kind === "delay") await new Promise((r) => setTimeout(r, behaviour.ms));
    if (behaviour?.kind === "error") {
      const payload = anthropic
        ? { type: "error", error: { type: "api_error", message: behaviour.message ?? "upstream exploded" } }
        : { error: { message: behaviour.message ?? "upstream exploded", type: "server_error", code: null } };
      res.writeHead(behaviour.status, { "content-type": "application/json", ...behaviour.headers });
      res.end(JSON.stringify(payload));
      return;
    }

    const reply = (opts.reply ?? defaultReply)(body);
    const usageOf = opts.usage ?? ((b: any, r: string) => ({ prompt: words(JSON.stringify(b.messages ?? [])), completion: words(r), cached: 0 }));
    const u: { prompt: number; completion: number; cached?: number } = usageOf(body, reply);
    const offersTools = Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== "none" && body.tool_choice?.type !== "none";
    const tool = offersTools ? (opts.toolCall?.(body) ?? null) : null;
    const pieces = reply.match(/\S+\s*/g) ?? [reply];
    const stream = body.stream === true;
    const chunkCount = behaviour?.kind === "break-stream" || behaviour?.kind === "slow-stream" ? behaviour.chunks : pieces.length;
    const interval = behaviour?.kind === "slow-stream" || behaviour?.kind === "break-stream" ? (behaviour.intervalMs ?? 0) : 0;
    const piece = (i: number) => pieces[i % pieces.length]!;

    if (!stream) {
      res.writeHead(200, { "content-type": "application/json" });
      if (anthropic) {
        res.end(
          JSON.stringify({
            id: "msg_fake",
            type: "message",
            role: "assistant",
            model: body.model,
            content: tool ? [{ type: "tool_use", id: "toolu_fake1", name: tool.name, input: tool.arguments }] : [{ type: "text", text: reply }],
            stop_reason: tool ? "tool_use" : "end_turn",
            usage: { input_tokens: u.prompt - (u.cached ?? 0), output_tokens: u.completion, cache_read_input_tokens: u.cached ?? 0 },
          }),
        );
      } else {
        res.end(
          JSON.stringify({
            id: "chatcmpl-fake",
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              {
                index: 0,
                message: tool
                  ? { role: "assistant", content: null, tool_calls: [{ id: "call_fake1", type: "function", function: { name: tool.name, arguments: JSON.stringify(tool.arguments) } }] }
                  : { role: "assistant", content: reply },
                finish_reason: tool ? "tool_calls" : "stop",
              },
            ],
            usage: { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion, prompt_tokens_details: { cached_tokens: u.cached ?? 0 } },
          }),
        );
      }
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (event: string | null, data: unknown) =>
      res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    const wait = () => (interval ? new Promise((r) => setTimeout(r, interval)) : Promise.resolve());
    const breakIt = behaviour?.kind === "break-stream";

    if (anthropic) {
      send("message_start", { type: "message_start", message: { id: "msg_fake", type: "message", role: "assistant", model: body.model, content: [], usage: { input_tokens: u.prompt - (u.cached ?? 0), output_tokens: 1, cache_read_input_tokens: u.cached ?? 0 } } });
      if (tool) {
        send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_fake1", name: tool.name, input: {} } });
        send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.arguments) } });
        send("content_block_stop", { type: "content_block_stop", index: 0 });
      } else {
        send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
        for (let i = 0; i < chunkCount; i++) {
          if (res.destroyed) return;
          send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece(i) } });
          await wait();
        }
        if (breakIt) {
          await wait();
          return void res.destroy();
        }
        send("content_block_stop", { type: "content_block_stop", index: 0 });
      }
      send("message_delta", { type: "message_delta", delta: { stop_reason: tool ? "tool_use" : "end_turn" }, usage: { output_tokens: u.completion } });
      send("message_stop", { type: "message_stop" });
      res.end();
      return;
    }

    const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
    send(null, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    if (tool) {
      send(null, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_fake1", type: "function", function: { name: tool.name, arguments: "" } }] }, finish_reason: null }] });
      send(null, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(tool.arguments) } }] }, finish_reason: null }] });
    } else {
      for (let i = 0; i < chunkCount; i++) {
        if (res.destroyed) return;
        send(null, { ...base, choices: [{ index: 0, delta: { content: piece(i) }, finish_reason: null }] });
        await wait();
      }
      if (breakIt) {
        await wait();
        return void res.destroy();
      }
    }
    send(null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: tool ? "tool_calls" : "stop" }] });
    if (body.stream_options?.include_usage) {
      send(null, { ...base, choices: [], usage: { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion, prompt_tokens_details: { cached_tokens: u.cached ?? 0 } } });
    }
    send(null, "[DONE]");
    res.end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBase: `${url}/v1`,
    anthropicBase: url,
    requests,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
