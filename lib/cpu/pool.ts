import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { readCatalog } from "@/db/catalog/sync";
import { AppError, type ErrorCode } from "@/lib/errors";
import { log } from "@/lib/log";

/**
 * The CPU worker: large bodies are decoded, parsed, checked against the context window and
 * tokenized off the event loop. One thread, started on first use; the build bundles the .mjs as a
 * worker entry (changes need a rebuild). A crashed worker is replaced on the next job; its jobs
 * fail with a 500.
 */
const WORKER_FILE = path.join(process.cwd(), "lib/worker/cpu-thread.mjs");

interface WorkerError {
  status: number;
  code: string;
  message: string;
  param: string | null;
}
type Reply = { id: number; ok: true; [k: string]: unknown } | { id: number; ok: false; error: WorkerError };

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: unknown) => void }>();

function contextWindows(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const g of readCatalog().groups) for (const m of g.models) out[m.slug] = m.context_window;
  return out;
}

function getWorker(): Worker {
  if (worker) return worker;
  // A small young generation: big strings live in large-object space anyway, and the server's
  // semi-space flag would otherwise apply to this thread too.
  const w = new Worker(WORKER_FILE, {
    workerData: { contextWindows: contextWindows() },
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  w.unref();
  w.on("message", (reply: Reply) => {
    const job = pending.get(reply.id);
    pending.delete(reply.id);
    job?.resolve(reply);
  });
  const down = (err: unknown) => {
    if (worker === w) worker = undefined;
    for (const [id, job] of pending) {
      pending.delete(id);
      job.reject(err);
    }
  };
  w.on("error", (err) => {
    log.error({ err }, "cpu worker failed");
    down(err);
  });
  w.on("exit", (code) => down(new Error(`cpu worker exited with ${code}`)));
  worker = w;
  return w;
}

const STATUS_CODES: Record<number, ErrorCode> = { 400: "invalid_request", 413: "payload_too_large" };

function run(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply & { ok: true }> {
  const id = nextId++;
  return new Promise<Reply>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    getWorker().postMessage({ id, ...message }, transfer);
  }).then((reply) => {
    if (reply.ok) return reply;
    const e = reply.error;
    throw new AppError(STATUS_CODES[e.status] ?? "internal", e.message, { wireCode: e.code, param: e.param });
  });
}

/**
 * Bodies above this size are decoded and parsed in the CPU worker, never on the event loop, where
 * each pass over a large body (concat, decode, parse) would block every other request.
 */
export const PARSE_OFF_LOOP_ABOVE_BYTES = 1024 * 1024;

export interface ParsedBody {
  value: unknown;
  /** Tokens of the texts the model reads (o200k), when the model's context window was known. */
  textTokens?: number;
  /** SHA-256 of each data: image URI, by message and part index. */
  digests: { i: number; j: number; sha256: string }[];
}

/**
 * Parses a JSON body off the event loop (the chunks are transferred, not copied). Refuses, without
 * handing the body back, one whose texts cannot fit the requested model's context window.
 * @throws AppError 400 invalid_json / context_length_exceeded / invalid_value (a bad data: URI)
 */
export async function parseJsonOffLoop(chunks: Uint8Array[]): Promise<ParsedBody> {
  const buffers = chunks.map((c) =>
    c.byteOffset === 0 && c.byteLength === c.buffer.byteLength
      ? (c.buffer as ArrayBuffer)
      : (c.slice().buffer as ArrayBuffer),
  );
  const reply = await run({ op: "parse", chunks: buffers }, buffers);
  return {
    value: reply.value,
    textTokens: reply.textTokens as number | undefined,
    digests: reply.digests as ParsedBody["digests"],
  };
}

/** Counts the o200k tokens of `texts` off the event loop; null when they pass `limit`. */
export async function countTokensOffLoop(texts: string[], limit: number): Promise<number | null> {
  const reply = await run({ op: "count", texts, limit });
  return reply.tokens as number | null;
}

export interface PlainGuardrailRule {
  id: string;
  name: string;
  stage: string;
  action: string;
  match: { type: string; pattern: string };
}

/** Applies guardrail rules (lib/guardrails/matchers.mjs) to texts off the event loop. */
export async function applyGuardrailsOffLoop(rules: PlainGuardrailRule[], texts: string[]): Promise<unknown> {
  const reply = await run({ op: "guardrails", rules, texts });
  return reply.outcome;
}

/** The text cut to its first `maxTokens` o200k tokens, off the event loop (work bounded by maxTokens). */
export async function truncateTokensOffLoop(
  text: string,
  maxTokens: number,
): Promise<{ text: string; truncated: boolean }> {
  const reply = await run({ op: "truncate", text, maxTokens });
  return { text: reply.text as string, truncated: reply.truncated as boolean };
}
