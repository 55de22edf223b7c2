import { SpanKind, SpanStatusCode, type Attributes, type Span } from "@opentelemetry/api";
import { CAPTURE_CONTENT, gatewayTracer } from "./tracer";
import { errorMessage } from "./error-message";

/** The parts of the provider layer's types (lib/providers/types.ts) a span reads. */
interface WireToolCall {
  id: string;
  function: { name: string; arguments: string };
}
interface UpstreamMessage {
  role: string;
  content: unknown;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}
export interface UpstreamRequest {
  model: string;
  messages: UpstreamMessage[];
  params: Record<string, unknown>;
  maxOutputTokens?: number;
}
interface UpstreamUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}
export interface UpstreamResult {
  model?: string;
  content: string | null;
  toolCalls: WireToolCall[];
  finishReason: string;
  usage: UpstreamUsage | null;
}
export interface UpstreamChunk {
  model?: string;
  content?: string;
  toolCalls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
  finishReason?: string;
  usage?: UpstreamUsage;
}

/** GenAI provider names where ours differ from the conventions' well-known values. */
const PROVIDER_NAMES: Record<string, string> = { gemini: "gcp.gemini" };

/** Request fields (OpenAI wire names) and the attributes they go to. */
const REQUEST_PARAMS: Record<string, string> = {
  temperature: "gen_ai.request.temperature",
  top_p: "gen_ai.request.top_p",
  frequency_penalty: "gen_ai.request.frequency_penalty",
  presence_penalty: "gen_ai.request.presence_penalty",
  seed: "gen_ai.request.seed",
  n: "gen_ai.request.choice.count",
};

const servers = new Map<string, { address: string; port: number }>();

/** The attributes every upstream span starts with: operation, provider, model and server. */
function baseAttributes(operation: string, group: { id: string; baseUrl: string | null }, model: string): Attributes {
  const attributes: Attributes = {
    "gen_ai.operation.name": operation,
    "gen_ai.provider.name": PROVIDER_NAMES[group.id] ?? group.id,
    "gen_ai.request.model": model,
  };
  const server = group.baseUrl ? serverOf(group.baseUrl) : undefined;
  if (server) {
    attributes["server.address"] = server.address;
    attributes["server.port"] = server.port;
  }
  return attributes;
}

/** Host and port of a group's base URL (never its path or credentials), parsed once. */
function serverOf(baseUrl: string): { address: string; port: number } | undefined {
  let server = servers.get(baseUrl);
  if (!server) {
    try {
      const url = new URL(baseUrl);
      const port = url.port ? Number(url.port) : url.protocol === "http:" ? 80 : 443;
      server = { address: url.hostname, port };
      servers.set(baseUrl, server);
    } catch {
      return undefined;
    }
  }
  return server;
}

/** A message as the GenAI conventions' structured parts (JSON-encoded into gen_ai.*.messages). */
function toParts(m: UpstreamMessage): { role: string; parts: Record<string, unknown>[] } {
  const parts: Record<string, unknown>[] = [];
  if (m.role === "tool") parts.push({ type: "tool_call_response", id: m.tool_call_id, response: m.content });
  else if (typeof m.content === "string") parts.push({ type: "text", content: m.content });
  else if (Array.isArray(m.content))
    for (const p of m.content as { type: string; text?: string }[])
      parts.push(p.type === "text" ? { type: "text", content: p.text } : { type: p.type });
  for (const c of m.tool_calls ?? []) parts.push(toolCallPart(c));
  return { role: m.role, parts };
}

function toolCallPart(c: WireToolCall): Record<string, unknown> {
  let args: unknown = c.function.arguments;
  try {
    args = JSON.parse(c.function.arguments);
  } catch {
    // kept as the string the model wrote
  }
  return { type: "tool_call", id: c.id, name: c.function.name, arguments: args };
}

/**
 * The client span of one upstream chat call (one attempt), with the GenAI semantic conventions:
 * started when the request goes out, ended with the answer, or for a stream when it ends.
 */
export class UpstreamSpan {
  private readonly span: Span;
  private readonly requestModel: string;
  private ended = false;
  private model?: string;
  private finishReason = "";
  private usage: UpstreamUsage | null = null;
  /** A stream's answer, kept only when content is captured. */
  private text = "";
  private calls: WireToolCall[] = [];

  constructor(group: { id: string; baseUrl: string | null }, req: UpstreamRequest) {
    this.requestModel = req.model;
    const attributes = baseAttributes("chat", group, req.model);
    if (req.maxOutputTokens !== undefined) attributes["gen_ai.request.max_tokens"] = req.maxOutputTokens;
    for (const [field, name] of Object.entries(REQUEST_PARAMS)) {
      const value = req.params[field];
      if (typeof value === "number") attributes[name] = value;
    }
    const stop = req.params.stop;
    if (typeof stop === "string") attributes["gen_ai.request.stop_sequences"] = [stop];
    else if (Array.isArray(stop)) attributes["gen_ai.request.stop_sequences"] = stop.map(String);
    if (CAPTURE_CONTENT) attributes["gen_ai.input.messages"] = JSON.stringify(req.messages.map(toParts));
    this.span = gatewayTracer().startSpan(`chat ${req.model}`, { kind: SpanKind.CLIENT, attributes });
  }

  /** Folds a stream's chunk in. */
  chunk(c: UpstreamChunk): void {
    if (c.model) this.model = c.model;
    if (c.finishReason) this.finishReason = c.finishReason;
    if (c.usage) this.usage = c.usage;
    if (!CAPTURE_CONTENT) return;
    if (c.content) this.text += c.content;
    for (const d of c.toolCalls ?? []) {
      const call = (this.calls[d.index] ??= { id: "", function: { name: "", arguments: "" } });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.function.name += d.function.name;
      if (d.function?.arguments) call.function.arguments += d.function.arguments;
    }
  }

  /** Ends the span with a whole answer, or (no argument) with what the stream's chunks said. */
  end(result?: UpstreamResult): void {
    if (this.ended) return;
    this.ended = true;
    if (result) {
      this.model = result.model ?? this.model;
      this.finishReason = result.finishReason;
      this.usage = result.usage;
      this.text = result.content ?? "";
      this.calls = result.toolCalls;
    }
    const attributes: Attributes = { "gen_ai.response.model": this.model ?? this.requestModel };
    if (this.finishReason) attributes["gen_ai.response.finish_reasons"] = [this.finishReason];
    if (this.usage) {
      attributes["gen_ai.usage.input_tokens"] = this.usage.promptTokens;
      attributes["gen_ai.usage.output_tokens"] = this.usage.completionTokens;
      attributes["gen_ai.usage.cache_read.input_tokens"] = this.usage.cachedTokens;
    }
    if (CAPTURE_CONTENT) {
      const parts: Record<string, unknown>[] = this.text ? [{ type: "text", content: this.text }] : [];
      for (const c of this.calls.filter(Boolean)) parts.push(toolCallPart(c));
      attributes["gen_ai.output.messages"] = JSON.stringify([
        { role: "assistant", parts, finish_reason: this.finishReason || null },
      ]);
    }
    this.span.setAttributes(attributes);
    this.span.end();
  }

  /** Ends the span as failed: the provider's status (or the error's name) as `error.type`. */
  fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    endFailed(this.span, err);
  }
}

function endFailed(span: Span, err: unknown): void {
  const status = (err as { status?: unknown } | null)?.status;
  span.setAttribute(
    "error.type",
    typeof status === "number" ? String(status) : err instanceof Error ? err.name : "unknown",
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
  span.end();
}

/** `call` (one upstream embeddings request) in a client span with the GenAI conventions. */
export async function traceEmbeddings<R extends { promptTokens: number | null }>(
  group: { id: string; baseUrl: string | null },
  req: { model: string; dimensions?: number },
  call: () => Promise<R>,
): Promise<R> {
  const attributes = baseAttributes("embeddings", group, req.model);
  if (req.dimensions !== undefined) attributes["gen_ai.embeddings.dimension.count"] = req.dimensions;
  const span = gatewayTracer().startSpan(`embeddings ${req.model}`, { kind: SpanKind.CLIENT, attributes });
  try {
    const result = await call();
    if (result.promptTokens !== null) span.setAttribute("gen_ai.usage.input_tokens", result.promptTokens);
    span.end();
    return result;
  } catch (err) {
    endFailed(span, err);
    throw err;
  }
}
