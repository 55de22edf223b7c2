import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A fake provider on loopback speaking OpenAI Chat Completions (JSON or SSE), OpenAI Embeddings and
 * Anthropic Messages. It records every request, can fail, stall, pace or break a stream, and never
 * reports more completion tokens than the output cap it received in a field it honours
 * (`capFields`).
 */
export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Set when the client closed the connection before the response ended. */
  abortedAt?: number;
  receivedAt: number;
  /** The body did not arrive whole (the client hung up while sending it); the request was not answered. */
  incomplete?: boolean;
  /** The output cap this fake honoured: the smallest honoured cap field present, null when none was sent. */
  cap: number | null;
  /** The usage this request's answer reports (cached tokens inside prompt), once computed. */
  usage?: { prompt: number; completion: number; cached: number };
  /** When that usage went on the wire (the JSON answer, or the stream's usage chunk); unset if the client left before. */
  usageSentAt?: number;
  /** When the stream chunk carrying finish_reason was written. */
  finishSentAt?: number;
  /** The answer text written so far (whole for JSON, the pieces sent for streams). */
  sentText: string;
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
  /**
   * A stream paced like a real model: the role chunk at once, the first content piece after
   * `firstTokenMs`, further pieces `intervalMs` apart (`chunks` in all, default one per word of
   * the reply), the finish_reason chunk, then the usage chunk (when asked for) as a separate event
   * `usageDelayMs` later, as OpenAI sends it. A JSON request is simply answered.
   */
  | { kind: "paced"; firstTokenMs?: number; intervalMs?: number; chunks?: number; usageDelayMs?: number }
  /** Accept the TCP connection and never answer. */
  | { kind: "hang" };

export type UsageFn = (
  body: any,
  reply: string,
  cap: number | null,
) => { prompt: number; completion: number; cached?: number };

export interface FakeUpstreamOptions {
  /** Reply text; default depends on the last user message. */
  reply?: (body: any) => string;
  /** Usage to report; default counts words. `cap` is the output cap honoured (see capFields). */
  usage?: UsageFn;
  /** Tool call to make when the request offers tools and tool_choice is not "none". */
  toolCall?: (body: any) => { name: string; arguments: Record<string, unknown> } | null;
  /** How many times the tool call is repeated in one reply (OpenAI's non-streamed reply only); default 1. */
  toolCallsPerReply?: number;
  /**
   * The body fields this upstream honours as its output cap, per request (default: OpenAI's
   * `max_completion_tokens` and `max_tokens`; Anthropic's `max_tokens`). Real providers differ:
   * OpenAI's reasoning models take only `max_completion_tokens`, DeepSeek and Mistral only
   * `max_tokens`; a field they do not honour is ignored here.
   */
  capFields?: (body: any, path: string) => readonly string[];
  /** The behaviour for one request, chosen from its body (for concurrent calls); before `queue`. */
  behaviourFor?: (body: any) => Behaviour | undefined;
  /** Called once a request's body was read and recorded, before it is answered. */
  onRequest?: (record: RecordedRequest) => void;
}

/** A small seeded PRNG (mulberry32): numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a string mixed with a seed: a per-request seed that does not depend on arrival order. */
export function hashSeed(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * Random usage as a provider would report it: completion tokens up to the honoured cap (or
 * `uncappedMax`), prompt tokens up to `promptMax`, half with part cached. Drawn from `seed` and the
 * messages, so a call gets the same usage in any arrival order; only the counts are large, not the
 * text.
 */
export function randomUsage(opts: { seed: number; promptMax?: number; uncappedMax?: number }): UsageFn {
  const promptMax = opts.promptMax ?? 20_000;
  const uncappedMax = opts.uncappedMax ?? 200_000;
  return (body, _reply, cap) => {
    const rnd = seededRandom(hashSeed(opts.seed, JSON.stringify(body.messages ?? [])));
    const completion = 1 + Math.floor(rnd() * (cap ?? uncappedMax));
    const prompt = 1 + Math.floor(rnd() * promptMax);
    const cached = rnd() < 0.5 ? 0 : Math.floor(rnd() * prompt);
    return { prompt, completion, cached };
  };
}

const DEFAULT_CAP_FIELDS = (_body: any, path: string): readonly string[] =>
  path.startsWith("/v1/messages") ? ["max_tokens"] : ["max_completion_tokens", "max_tokens"];

function honouredCap(body: any, fields: readonly string[]): number | null {
  const caps = fields
    .map((f) => body?.[f])
    .filter((v): v is number => typeof v === "number" && Number.isFinite(v) && v > 0);
  return caps.length ? Math.min(...caps) : null;
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
      if (Array.isArray(c))
        return c
          .filter((p: any) => p.type === "text")
          .map((p: any) => p.text)
          .join(" ");
    }
  }
  return "";
};

const defaultReply = (body: any) => `Echo from ${body.model}: ${lastUserText(body)}`;
const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/**
 * OpenAI's `/v1/embeddings`: one vector per input (`dimensions` long, default 8: each word, or token
 * id, hashed into a bucket, so texts sharing words point the same way), usage counting one token
 * per word or id. `input` takes OpenAI's four shapes (a string, strings, token ids, token-id arrays).
 */
function answerEmbeddings(res: http.ServerResponse, record: RecordedRequest, body: any): void {
  const inputs: (string | number[])[] =
    typeof body.input === "string" || typeof body.input?.[0] === "number" ? [body.input] : body.input;
  const dim = typeof body.dimensions === "number" ? body.dimensions : 8;
  const pieces = (input: string | number[]) =>
    typeof input === "string" ? input.toLowerCase().split(/\W+/).filter(Boolean) : input.map(String);
  const vector = (input: string | number[]) => {
    const v = new Array<number>(dim).fill(0);
    for (const w of pieces(input)) v[[...w].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) >>> 0, 7) % dim]! += 1;
    return v;
  };
  const prompt = inputs.reduce((n, t) => n + (typeof t === "string" ? words(t) : t.length), 0);
  record.usage = { prompt, completion: 0, cached: 0 };
  record.usageSentAt = Date.now();
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      object: "list",
      model: body.model,
      data: inputs.map((t, index) => ({ object: "embedding", index, embedding: vector(t) })),
      usage: { prompt_tokens: prompt, total_tokens: prompt },
    }),
  );
}

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<import("node:net").Socket>();

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    let incomplete = false;
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      incomplete = true; // the client hung up while sending
    }
    let body: any = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
    } catch {
      body = { raw: Buffer.concat(chunks).toString("utf8") };
    }
    const path = req.url ?? "";
    const cap = honouredCap(body, (opts.capFields ?? DEFAULT_CAP_FIELDS)(body, path));
    const record: RecordedRequest = { path, headers: req.headers, body, receivedAt: Date.now(), cap, sentText: "" };
    if (incomplete) record.incomplete = true;
    requests.push(record);
    if (incomplete) return void res.destroy();
    res.on("close", () => {
      if (!res.writableFinished) record.abortedAt = Date.now();
    });
    opts.onRequest?.(record);

    const anthropic = path.startsWith("/v1/messages");
    const behaviour = opts.behaviourFor?.(body) ?? queue.shift();
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

    if (path.startsWith("/v1/embeddings")) return void answerEmbeddings(res, record, body);

    const reply = (opts.reply ?? defaultReply)(body);
    const usageOf: UsageFn =
      opts.usage ?? ((b, r) => ({ prompt: words(JSON.stringify(b.messages ?? [])), completion: words(r), cached: 0 }));
    const reported = usageOf(body, reply, cap);
    const u = { prompt: reported.prompt, completion: reported.completion, cached: reported.cached ?? 0 };
    record.usage = u;
    const offersTools =
      Array.isArray(body.tools) &&
      body.tools.length > 0 &&
      body.tool_choice !== "none" &&
      body.tool_choice?.type !== "none";
    const tool = offersTools ? (opts.toolCall?.(body) ?? null) : null;
    const pieces = reply.match(/\S+\s*/g) ?? [reply];
    const stream = body.stream === true;
    const paced = behaviour?.kind === "paced" ? behaviour : undefined;
    const chunkCount =
      behaviour?.kind === "break-stream" || behaviour?.kind === "slow-stream"
        ? behaviour.chunks
        : (paced?.chunks ?? pieces.length);
    const interval =
      behaviour?.kind === "slow-stream" || behaviour?.kind === "break-stream"
        ? (behaviour.intervalMs ?? 0)
        : (paced?.intervalMs ?? 0);
    const piece = (i: number) => pieces[i % pieces.length]!;
    const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
    const gone = () => res.destroyed || record.abortedAt !== undefined;

    if (!stream) {
      record.sentText = tool ? "" : reply;
      record.usageSentAt = Date.now();
      res.writeHead(200, { "content-type": "application/json" });
      if (anthropic) {
        res.end(
          JSON.stringify({
            id: "msg_fake",
            type: "message",
            role: "assistant",
            model: body.model,
            content: tool
              ? [{ type: "tool_use", id: "toolu_fake1", name: tool.name, input: tool.arguments }]
              : [{ type: "text", text: reply }],
            stop_reason: tool ? "tool_use" : "end_turn",
            usage: {
              input_tokens: u.prompt - u.cached,
              output_tokens: u.completion,
              cache_read_input_tokens: u.cached,
            },
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
                  ? {
                      role: "assistant",
                      content: null,
                      tool_calls: Array.from({ length: opts.toolCallsPerReply ?? 1 }, (_, i) => ({
                        id: `call_fake${i + 1}`,
                        type: "function",
                        function: { name: tool.name, arguments: JSON.stringify(tool.arguments) },
                      })),
                    }
                  : { role: "assistant", content: reply },
                finish_reason: tool ? "tool_calls" : "stop",
              },
            ],
            usage: {
              prompt_tokens: u.prompt,
              completion_tokens: u.completion,
              total_tokens: u.prompt + u.completion,
              prompt_tokens_details: { cached_tokens: u.cached },
            },
          }),
        );
      }
      return;
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (event: string | null, data: unknown) =>
      res.write(
        `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
      );
    const wait = () => sleep(interval);
    const breakIt = behaviour?.kind === "break-stream";

    if (anthropic) {
      send("message_start", {
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          model: body.model,
          content: [],
          usage: { input_tokens: u.prompt - u.cached, output_tokens: 1, cache_read_input_tokens: u.cached },
        },
      });
      if (tool) {
        send("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_fake1", name: tool.name, input: {} },
        });
        send("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.arguments) },
        });
        send("content_block_stop", { type: "content_block_stop", index: 0 });
      } else {
        send("content_block_start", {
          type: "content_block_start",
          index: 0,
          content_block: { type: "text", text: "" },
        });
        for (let i = 0; i < chunkCount; i++) {
          if (res.destroyed) return;
          send("content_block_delta", {
            type: "content_block_delta",
            index: 0,
            delta: { type: "text_delta", text: piece(i) },
          });
          record.sentText += piece(i);
          await wait();
        }
        if (breakIt) {
          await wait();
          return void res.destroy();
        }
        send("content_block_stop", { type: "content_block_stop", index: 0 });
      }
      send("message_delta", {
        type: "message_delta",
        delta: { stop_reason: tool ? "tool_use" : "end_turn" },
        usage: { output_tokens: u.completion },
      });
      record.finishSentAt = record.usageSentAt = Date.now();
      send("message_stop", { type: "message_stop" });
      res.end();
      return;
    }

    const base = {
      id: "chatcmpl-fake",
      object: "chat.completion.chunk",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
    };
    send(null, { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
    if (tool) {
      send(null, {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, id: "call_fake1", type: "function", function: { name: tool.name, arguments: "" } },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      send(null, {
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(tool.arguments) } }] },
            finish_reason: null,
          },
        ],
      });
    } else {
      await sleep(paced?.firstTokenMs ?? 0);
      for (let i = 0; i < chunkCount; i++) {
        if (gone()) return;
        if (paced && i > 0) await wait();
        if (gone()) return;
        send(null, { ...base, choices: [{ index: 0, delta: { content: piece(i) }, finish_reason: null }] });
        record.sentText += piece(i);
        if (!paced) await wait();
      }
      if (breakIt) {
        await wait();
        return void res.destroy();
      }
    }
    if (gone()) return;
    send(null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: tool ? "tool_calls" : "stop" }] });
    record.finishSentAt = Date.now();
    if (body.stream_options?.include_usage) {
      await sleep(paced?.usageDelayMs ?? 0);
      if (gone()) return;
      send(null, {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: u.prompt,
          completion_tokens: u.completion,
          total_tokens: u.prompt + u.completion,
          prompt_tokens_details: { cached_tokens: u.cached },
        },
      });
      record.usageSentAt = Date.now();
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
