/** The internal chat format is OpenAI's Chat Completions wire format: every adapter translates to and from it. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
}

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } }
  | { type: string; [k: string]: unknown };

export interface ChatMessage {
  role: string;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [k: string]: unknown;
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export interface Passage {
  text: string;
  documentId?: string;
  collectionId?: string;
  filename?: string;
  score?: number;
}

export interface ChatRequest {
  /** Upstream model id. */
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: unknown;
  /** Standard sampling/format fields passed through as given (temperature, stop, seed, …). */
  params: Record<string, unknown>;
  maxOutputTokens?: number;
  /** Context retrieved by the pipeline (RAG); adapters of real models receive it inside messages. */
  passages?: Passage[];
  /** What the multimodal stage extracted from images (OCR, captions), for the local models. */
  imageNotes?: string[];
}

export interface ChatResult {
  /** The model the provider says answered, when it says. */
  model?: string;
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: Usage | null;
}

export interface ChatChunk {
  /** The model the provider says answers, when it says (OpenAI: on the first chunk passed on). */
  model?: string;
  content?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
  usage?: Usage;
}

export interface CallOptions {
  signal: AbortSignal;
  /**
   * `true` when a request goes out, `false` when it provably never arrived (connection failed): a
   * call cancelled after the provider received it is billed for its prompt, as the provider bills
   * us.
   */
  onDispatch?: (sent: boolean) => void;
  /** Told each failed attempt that is retried or falls back (a run step lists them). */
  onAttemptFailed?: (attempt: { upstreamId: string; status: number | null; message: string }) => void;
}

/**
 * One upstream protocol. Errors are UpstreamError; `stream` yields nothing before the call
 * succeeds, then the chunks in batches as they arrive (each a non-empty array: what one read held).
 */
export interface ProviderAdapter {
  complete(req: ChatRequest, opts: CallOptions): Promise<ChatResult>;
  stream(req: ChatRequest, opts: CallOptions): AsyncIterable<ChatChunk[]>;
}

/** An upstream failure, with whether retrying (same or next upstream id) could help. */
export class UpstreamError extends Error {
  constructor(
    readonly provider: string,
    readonly status: number | null,
    message: string,
    readonly retryable: boolean,
    /** The provider's Retry-After, in milliseconds, when it sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}
