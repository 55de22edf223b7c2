import type { GuardrailStage, ThreadSource } from "@/db/enums";
import type { CreditHold } from "@/lib/billing/lease";
import type { AppliedRule } from "@/lib/guardrails/apply";
import type { CompanyRules } from "@/lib/guardrails/rule-cache";
import type { ResolvedModel } from "@/lib/models";
import type { Composition } from "@/lib/profiles/compose";
import type { ChatChunk, ChatMessage, Passage, ToolCall, ToolDefinition, Usage } from "@/lib/providers/types";
import type { RunStep } from "./steps";

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

/** The run request's `tool_choice` (the tools stage turns it into the prompt's `tools`/`toolChoice`). */
type RunToolChoice = "auto" | "none" | "required" | { type: "function"; function: { name: string } };

/**
 * What the caller asked, fixed for the whole run. Chat completions and the threads API each build
 * one; no stage changes it.
 */
export interface RunRequest {
  readonly companyId: string;
  /** The slug as requested: what responses and frames show as `model`. */
  readonly requestedModel: string;
  readonly model: ResolvedModel;
  readonly runId: string;
  /** Public id of the answer (`chatcmpl-…` for completions). */
  readonly responseId: string;
  readonly threadId: string;
  readonly startedAt: number;
  readonly signal: AbortSignal;
  /** Settles when the rate limiter admitted the call; nothing with a side effect runs before. */
  readonly admitted?: Promise<void>;
  readonly stream: boolean;
  /** The request's `profile_ids` (runs; an extension of completions); absent: the company's default profile. */
  readonly profileIds?: string[];
  /** Runs: `mentioned_file_ids` (CONTRACT 6), read by the retrieval stage. */
  readonly mentionedFileIds?: string[];
  /** The run request's overrides of the profiles' toggles (true forces on, false forces off). */
  readonly useKb?: boolean;
  readonly useTools?: boolean;
  /** Runs: the request's `tool_choice`. */
  readonly runToolChoice?: RunToolChoice;
  readonly params: Record<string, unknown>;
  /**
   * `enable_multimodal` (SPEC run request; completions: always on). Off: images are neither
   * fetched, read nor described; a model that takes images still gets them as given.
   */
  readonly enableMultimodal: boolean;
  /**
   * Runs on a persistent thread (source api/webhook): the run row exists from the start (status
   * in_progress, the thread's active run) and persisting updates it; the assistant message takes
   * its seq from threads.next_seq. Completions' throwaway threads are written whole at the end.
   */
  readonly persistent?: boolean;
  /**
   * A response (Responses API) continuing a chain: the run it follows. Its history is the messages
   * of the runs along the chain, not the whole thread (two continuations of one response fork).
   */
  readonly previousRunId?: string;
  /**
   * A response with `store: false`: nothing is written but the bill (no thread, message or run
   * row), and the thread is not claimed.
   */
  readonly ephemeral?: boolean;
  /**
   * A persistent run on a thread its own final statement makes (a non-streaming response outside a
   * conversation): nobody knows the thread's id before it is stored, so the run claims nothing and
   * reads no history; the thread, its input, answer and run are written at once, as a completion's.
   */
  readonly newThread?: boolean;
  /**
   * The request carries its own function tools (Responses API): their calls are returned to the
   * caller, never executed, and the assistant's calls are stored with the thread so the caller's
   * results can follow them.
   */
  readonly clientTools?: boolean;
  /** The id the run's answer message is stored under (a response names it in its output). */
  readonly answerMessageId?: string;
  /** The request fields a response echoes (runs.request). */
  readonly requestEcho?: Record<string, unknown>;
  /** SHA-256 of the request's data: images the worker hashed, keyed `message.part` (inputMessages' indexes). */
  readonly imageDigests?: Record<string, string>;
}

/** The prompt as the model will get it: the caller's, then rewritten by the stages in turn. */
export interface RunPrompt {
  /** System-prompt layers in order: profiles, then the request's system messages / instructions. */
  instructions: string[];
  /** The conversation as given (roles preserved), minus the system messages lifted into instructions. */
  messages: ChatMessage[];
  /** Messages to store with the thread, as received (an input guardrail may redact them). */
  inputMessages: ChatMessage[];
  /** Completions: the request's tools; runs: the tools stage's. */
  tools?: ToolDefinition[];
  toolChoice?: unknown;
  maxOutputTokens?: number;
  /** o200k tokens of the prompt's texts, counted by the CPU worker that parsed a large body and kept current by the stages. */
  promptTextTokens?: number;
  /** Tokens of input messages the history stage counted, stored with them (a redacted copy is counted again). */
  inputTokens?: Map<ChatMessage, number>;
}

/** The thread the run belongs to. */
interface RunThread {
  /** The caller's; the history stage's claim replaces it with the stored thread's. */
  source: ThreadSource;
  /** The history stage claimed the thread (or the run makes its own, newThread): a failure from here on is stored. */
  claimed?: boolean;
}

/** The profiles stage's output: what was composed (knowledge bases and tools for later stages). */
export interface ProfilesOutput {
  composition?: Composition;
}

/** The tools stage's output (runs). */
export interface ToolsOutput {
  /** The company tools offered, by name; set, the tool loop executes the model's calls. */
  serverTools?: Map<string, ServerTool>;
  /** Names the profiles list that are not active tools (skipped). */
  toolsMissing?: string[];
  /** Why the profiles' tools were not offered (the model takes none). */
  toolsSkipped?: string;
}

/** The guardrail stages' output. */
export interface GuardrailsOutput {
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
  appliedRules: AppliedRule[];
}

/** The multimodal stage's output: what it made of each image (description and OCR text), in order. */
export interface MultimodalOutput {
  imageNotes: string[];
}

/** The retrieval stage's output. */
export interface RetrievalOutput {
  passages: Passage[];
  citations: Citation[];
}

/** The model stage's output (the tool loop and the output guardrails rewrite it). */
export interface ModelOutput {
  content: string;
  toolCalls: ToolCall[];
  finishReason: string;
  /** True when the usage came from the provider; else the tokenizer counted it. */
  usageReported: boolean;
  /**
   * Set once a request was sent upstream: from then on the provider may bill us for the prompt,
   * so a call that ends cancelled is still billed for it.
   */
  upstreamReached?: boolean;
}

/** The tool loop's output (runs). */
export interface ToolLoopOutput {
  /** The tool calls the loop executed, in order (the run's `tool_calls`). */
  executedTools?: ExecutedToolCall[];
  /** Host-measured CPU milliseconds of the run's tool executions (billed at TOOL_CPU_OT_PER_S). */
  toolCpuMs?: number;
}

/** The bill: what the run holds, used and costs. */
export interface RunBill {
  /** The call's credit hold (reserve-credit stage, renewed by the tool loop), ended by persist. */
  hold?: CreditHold;
  /** The prompt's exact token count when the reserve-credit stage tokenized it (long prompts), so it is counted once. */
  promptTokens?: number;
  usage: Usage;
  /** Cost of the model call plus `stageCalls` (and the tool loop's CPU), in micro-O₮. */
  costMicro: number;
  /** Model calls made by stages before the model; their cost is held and billed with the run's. */
  stageCalls?: StageModelCall[];
}

/** How the run ended, written by the pipeline and persistence. */
export interface RunOutcome {
  /** What the run did, in order (CONTRACT 6 run steps): each stage adds its own. */
  steps: RunStep[];
  error?: { code: string; message: string };
  /** Why the run was stopped when the request's signal aborted: a client that left, POST …/cancel, or the server's grace running out. */
  stopReason?: "client_disconnected" | "cancelled" | "server_shutdown";
  /** Set when the run is stored (persist-run). */
  latencyMs?: number;
}

/** Where a streaming caller wants the run's output as it happens. */
export interface RunSinks {
  /**
   * The model stage forwards upstream chunks here as they arrive, and waits when it returns a
   * promise (the sink wants its bytes on the wire before more work is done).
   */
  onChunk?: (chunk: ChatChunk) => void | Promise<void>;
  /** Streaming runs: told each executed tool call (a `{"tool_call":…}` frame). */
  onToolCall?: (call: ExecutedToolCall) => void;
}

/**
 * Everything a run carries through the pipeline: the request, the working prompt, each stage's
 * output, the bill and the outcome. Chat completions and the threads API hand one to the same
 * stages; each stage reads the parts it needs and writes its own.
 */
export type RunContext = RunRequest &
  RunPrompt &
  RunThread &
  ProfilesOutput &
  ToolsOutput &
  GuardrailsOutput &
  MultimodalOutput &
  RetrievalOutput &
  ModelOutput &
  ToolLoopOutput &
  RunBill &
  RunOutcome &
  RunSinks;

/** What the run's stage calls cost, in micro-O₮ (0 for almost every run). */
export function stageCallsMicro(bill: Pick<RunBill, "stageCalls">): number {
  if (!bill.stageCalls) return 0;
  let n = 0;
  for (const c of bill.stageCalls) n += c.costMicro;
  return n;
}

/** A pipeline stage: reads the parts of the context it needs and writes its own; throws AppError to stop the run. */
export interface Stage<C = RunContext> {
  name: string;
  /** `C`: the parts of the context this stage reads and writes; the pipeline passes the whole context. */
  run(ctx: C): Promise<void>;
  /**
   * True when this call has nothing for the stage, known without waiting: the pipeline then skips
   * `run`, so a call pays no promise and no turn for a stage it does not use. Reads, never writes;
   * `run` may rely on it being false.
   */
  skips?(ctx: C): boolean;
}

/** What every run starts with before a stage has done anything (the request and prompt are the caller's). */
export function freshRunState(): GuardrailsOutput &
  MultimodalOutput &
  RetrievalOutput &
  ModelOutput &
  Pick<RunBill, "usage" | "costMicro"> &
  Pick<RunOutcome, "steps"> {
  return {
    passages: [],
    imageNotes: [],
    appliedRules: [],
    citations: [],
    steps: [],
    content: "",
    toolCalls: [],
    finishReason: "",
    usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
    usageReported: false,
    costMicro: 0,
  };
}
