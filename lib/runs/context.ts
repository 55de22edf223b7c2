import type { GuardrailStage, ThreadSource } from "@/db/enums";
import type { CompanyRules } from "@/lib/guardrails/rule-cache";
import type { CreditHold } from "@/lib/billing/lease";
import type { ResolvedModel } from "@/lib/models";
import type { Composition } from "@/lib/profiles/compose";
import type { ChatChunk, ChatMessage, Passage, ToolCall, ToolDefinition, Usage } from "@/lib/providers/types";
import type { RunStep } from "./steps";

export interface AppliedRule {
  id: string;
  name: string;
  action: string;
  stage: string;
}

interface Citation {
  document_id: string;
  collection_id: string;
  filename: string;
  chunk: string;
  score: number;
}

/** A company tool offered to a run (lib/runs/stages/tools.ts). */
export interface ServerTool {
  id: string;
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
  pythonCode: string;
  /** Changes when the tool is edited (its compiled argument validator is cached by it). */
  version: string;
}

/** A tool call the run executed: SPEC's `{name, args, result}`. */
export interface ExecutedToolCall {
  name: string;
  args: unknown;
  result: unknown;
}

/** A model call a stage made before the main one (the multimodal stage's image descriptions), billed with the run. */
export interface StageModelCall {
  stage: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  costMicro: number;
}

/** What the run's stage calls cost, in micro-O₮ (0 for almost every run). */
export function stageCallsMicro(ctx: Pick<RunContext, "stageCalls">): number {
  if (!ctx.stageCalls) return 0;
  let n = 0;
  for (const c of ctx.stageCalls) n += c.costMicro;
  return n;
}

/**
 * Everything a run carries through the pipeline. Chat completions and the threads API both build
 * one of these and hand it to the same stages; each stage reads and fills its part.
 */
export interface RunContext {
  companyId: string;
  source: ThreadSource;
  /** The slug as requested: what responses and frames show as `model`. */
  requestedModel: string;
  model: ResolvedModel;
  runId: string;
  /** Public id of the answer (`chatcmpl-…` for completions). */
  responseId: string;
  threadId: string;
  startedAt: number;
  signal: AbortSignal;
  /** Settles when the rate limiter admitted the call; nothing with a side effect runs before. */
  admitted?: Promise<void>;
  stream: boolean;

  /** The request's `profile_ids` (runs; an extension of completions); absent: the company's default profile. */
  profileIds?: string[];
  /** Runs: `mentioned_file_ids` (CONTRACT 6), read by the retrieval stage. */
  mentionedFileIds?: string[];
  /** The run request's overrides of the profiles' toggles (true forces on, false forces off). */
  useKb?: boolean;
  useTools?: boolean;
  /** Set by the profiles stage: what was composed (knowledge bases and tools for later stages). */
  composition?: Composition;
  /** System-prompt layers in order: profiles, then the request's system messages / instructions. */
  instructions: string[];
  /** The conversation as given (roles preserved), minus the system messages lifted into instructions. */
  messages: ChatMessage[];
  /** Messages to store with the thread, exactly as received. */
  inputMessages: ChatMessage[];
  tools?: ToolDefinition[];
  toolChoice?: unknown;
  /** Runs: the request's `tool_choice` (the tools stage turns it into `tools`/`toolChoice`). */
  runToolChoice?: import("./stages/tools").RunToolChoice;
  /** Runs: the company tools offered, by name; set, the tool loop executes the model's calls. */
  serverTools?: Map<string, ServerTool>;
  /** Names the profiles list that are not active tools (skipped). */
  toolsMissing?: string[];
  /** Why the profiles' tools were not offered (the model takes none). */
  toolsSkipped?: string;
  /** The tool calls the loop executed, in order (the run's `tool_calls`). */
  executedTools?: ExecutedToolCall[];
  /** Host-measured CPU milliseconds of the run's tool executions (billed at TOOL_CPU_OT_PER_S). */
  toolCpuMs?: number;
  /** Streaming runs: told each executed tool call (a `{"tool_call":…}` frame). */
  onToolCall?: (call: ExecutedToolCall) => void;
  params: Record<string, unknown>;
  maxOutputTokens?: number;
  passages: Passage[];
  /**
   * `enable_multimodal` (SPEC run request; completions: always on). Off: images are neither
   * fetched, read nor described; a model that takes images still gets them as given.
   */
  enableMultimodal: boolean;
  /** What the multimodal stage made of each image (description and OCR text), in order. */
  imageNotes: string[];
  appliedRules: AppliedRule[];
  citations: Citation[];
  /** What the run did, in order (CONTRACT 6 run steps): each stage adds its own. */
  steps: RunStep[];
  /**
   * Runs on a persistent thread (source api/webhook): the run row exists from the start (status
   * in_progress, the thread's active run) and persisting updates it; the assistant message takes
   * its seq from threads.next_seq. Completions' throwaway threads are written whole at the end.
   */
  persistent?: boolean;
  /** The run row exists (the history stage claimed the thread): a failure from here on is stored. */
  claimed?: boolean;
  /** Set when the run is stored (persist-run). */
  latencyMs?: number;
  /** Why the run was stopped when ctx.signal aborted: a client that left, POST …/cancel, or the server's grace running out. */
  stopReason?: "client_disconnected" | "cancelled" | "server_shutdown";
  /** The company's active guardrail rules (input-guardrails stage; cached per process). */
  guardrails?: CompanyRules;
  /**
   * The company has output rules: the answer is checked whole before any of it reaches the client,
   * so a streaming call sends nothing until the model is done (output rules cannot be applied to
   * bytes already sent, and a regex match has no bounded length for a tail window).
   */
  holdOutput?: boolean;
  /** A guardrail blocked the run: `content` is the refusal and `finishReason` is `content_filter`. */
  blockedBy?: GuardrailStage;

  /** o200k tokens of the request's texts, counted by the CPU worker that parsed a large body. */
  promptTextTokens?: number;
  /** SHA-256 of the request's data: images the worker hashed, keyed `message.part` (inputMessages' indexes). */
  imageDigests?: Record<string, string>;
  /** The prompt's exact token count when the reserve-credit stage tokenized it (long prompts), so it is counted once. */
  promptTokens?: number;
  /** The call's credit hold (reserve-credit stage), ended by persist. */
  hold?: CreditHold;
  /** Set by the model stage. */
  content: string;
  toolCalls: ToolCall[];
  finishReason: string;
  usage: Usage;
  /** True when the usage came from the provider; else the tokenizer counted it. */
  usageReported: boolean;
  /**
   * Set once a request was sent upstream (the model stage): from then on the provider may bill us
   * for the prompt, so a call that ends cancelled is still billed for it.
   */
  upstreamReached?: boolean;
  /** Cost of the model call plus `stageCalls`. */
  costMicro: number;
  /** Model calls made by stages before the model; their cost is held and billed with the run's. */
  stageCalls?: StageModelCall[];
  error?: { code: string; message: string };
  /**
   * Streaming sink: the model stage forwards upstream chunks here as they arrive, and waits when
   * it returns a promise (the sink wants its bytes on the wire before more work is done).
   */
  onChunk?: (chunk: ChatChunk) => void | Promise<void>;
}

/** A pipeline stage: reads and fills the context; throws AppError to stop the run. */
export interface Stage {
  name: string;
  run(ctx: RunContext): Promise<void>;
}

/** What every run starts with before a stage has done anything (the request's part is the caller's). */
export function freshRunState() {
  return {
    passages: [] as RunContext["passages"],
    imageNotes: [] as string[],
    appliedRules: [] as AppliedRule[],
    citations: [] as Citation[],
    steps: [] as RunStep[],
    content: "",
    toolCalls: [] as ToolCall[],
    finishReason: "",
    usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
    usageReported: false,
    costMicro: 0,
  };
}
